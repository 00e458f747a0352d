"""Whole tf.keras models against TensorFlow 1.15 (tf_reference/keras_models_cases.py): the
same model built here has TF's config (to_json), weight names and trained values; the HDF5
file TF 1.15 saved loads here and predicts what TF predicted (optimizer state included); the
file tfcluster saved loads in TF 1.15 and TF predicted from it what tfcluster predicts."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_models_cases import MODELS, describe, trained

h5py = pytest.importorskip("h5py")

FILES = os.path.join(reference.DATA_DIR, "keras_models")
RTOL, ATOL = 1e-4, 1e-5


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{path}: {got!r} is not a dict"
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and not (want and isinstance(want[0], np.ndarray)):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _close(got: list[Any], want: list[Any], what: str) -> None:
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_built_here_has_tensorflows_config_names_and_trained_values(name: str) -> None:
    want = reference.case("keras_models", name)
    m, x, _ = trained(tf, name)
    got = describe(m, x)
    _same(got["config"], want["config"], "config")
    assert got["weight_names"] == want["weight_names"]
    assert sorted(got["optimizer_weight_names"]) == sorted(want["optimizer_weight_names"])
    _close(got["weights"], want["weights"], "weights after fit")
    _close([got["predict"]], [want["predict"]], "predict")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_hdf5_file_saved_by_tensorflow_loads_and_predicts_the_same(name: str) -> None:
    want = reference.case("keras_models", name)
    tf.keras.backend.clear_session()
    m = tf.keras.models.load_model(os.path.join(FILES, "tf", name + ".h5"))
    got = describe(m, want["x"])
    _same(got["config"], want["config"], "config")
    _close(got["weights"], want["weights"], "weights")
    _close([got["predict"]], [want["predict"]], "predict")
    saved = dict(zip(want["optimizer_weight_names"], want["optimizer_weights"]))
    mine = dict(zip(got["optimizer_weight_names"], got["optimizer_weights"]))
    assert sorted(mine) == sorted(saved)
    for key, value in saved.items():
        np.testing.assert_allclose(mine[key], value, rtol=RTOL, atol=ATOL, err_msg=key)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_hdf5_file_saved_by_tfcluster_loads_in_tensorflow_with_the_same_answers(
    name: str,
) -> None:
    tf_read = reference.case("keras_models", "tf_loads_tfcluster_" + name)
    x = reference.case("keras_models", name)["x"]
    tf.keras.backend.clear_session()
    m = tf.keras.models.load_model(os.path.join(FILES, "tfcluster", name + ".h5"))
    got = describe(m, x)
    _same(got["config"], tf_read["config"], "config")
    _close(got["weights"], tf_read["weights"], "weights")
    _close([got["predict"]], [tf_read["predict"]], "predict")


def test_saving_again_writes_the_layout_tensorflow_writes(tmp_path: Any) -> None:
    m, _, _ = trained(tf, "functional")
    path = str(tmp_path / "m.h5")
    m.save(path)
    tf_file = os.path.join(FILES, "tf", "functional.h5")

    def layout(p: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        with h5py.File(p, "r") as f:
            out["/"] = sorted(f.attrs)

            def visit(name: str, obj: Any) -> None:
                attrs = {k: np.asarray(obj.attrs[k]).tolist() for k in obj.attrs}
                out[name] = (attrs, getattr(obj, "shape", None))

            f.visititems(visit)
            out["config"] = json.loads(f.attrs["model_config"])
        return out

    mine, theirs = layout(path), layout(tf_file)
    assert sorted(mine) == sorted(theirs)
    for key in theirs:
        if key not in ("/", "config"):
            assert mine[key][1] == theirs[key][1], key
    assert mine["config"] == theirs["config"]
