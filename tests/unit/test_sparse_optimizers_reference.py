"""Optimizers (dense and sparse updates), the SparseApply* ops, IndexedSlices and gradients of
gathers against TensorFlow: every program of tf_reference/sparse_optimizer_cases.py runs on
tfcluster and must give what TensorFlow 1.15 gave (values after each training step, slot and
variable names, update ops' names and types, IndexedSlices fetched and converted, warnings,
error classes), and what TensorFlow 2.x's tf.compat.v1 gave where it behaves as 1.15 does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.sparse_optimizer_cases import CASES
from tfcluster.ops import training_ops

# Where TF 2.x's compat.v1 is not TF 1.15 (tfcluster follows 1.15):
TF2_DIFFERS = {
    "gather_gradient_is_indexed_slices": "2.x takes the params' shape as int32 (no Cast op)",
    "indexed_slices_fetch_feed_and_convert": "2.x's message names the argument `value`",
}
# Where TF 1.15 is wrong and tfcluster gives what 2.x gives: case -> (entry, why).
TF115_WRONG = {
    "gather_gradients_on_other_axes": (
        "batch_dims1_axis2",
        "1.15 offsets the batches by params' shape, not the moved one: wrong columns",
    ),
}


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), f"{path}: {got!r} != TF's {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=2e-5), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _run(name: str) -> Any:
    return decode(encode(CASES[name](tf, training_ops)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tf_1_15_gives(name: str) -> None:
    want = dict(reference.case("sparse_optimizers", name))
    assert "skipped" not in want, want.get("skipped")
    got = _run(name)
    if name in TF115_WRONG:
        entry, _ = TF115_WRONG[name]
        del got[entry], want[entry]
    _same(got, want, name)


@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in TF2_DIFFERS))
def test_case_gives_what_tf_2_compat_v1_gives(name: str) -> None:
    want = reference.case("sparse_optimizers_tf2", name)
    if "skipped" in want:
        pytest.skip(f"TF 2.x could not run it: {want['skipped']}")
    _same(_run(name), want, name)
