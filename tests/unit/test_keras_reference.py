"""tf.keras against TensorFlow 1.15: every program of tf_reference/keras_cases.py runs on
tfcluster and must give what TF 1.15 gave: layer outputs, variable and tensor names, the
per-epoch losses and metrics of unshuffled fits from fixed weights (every optimizer, several
losses), evaluate/predict/train_on_batch, summary() text, save_weights keys, error classes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.keras_cases import CASES

# Float32 sums over a few hundred samples and three epochs of updates: agreement to ~1e-5.
RTOL, ATOL = 2e-5, 2e-6

# Where tfcluster's graph differs from TF 1.15's by design (values still compared):
NAMES_DIFFER = {
    # tfcluster's tf.cond returns the Merge output under the cond's own name.
    "layer_outputs": "Dropout/BatchNormalization outputs come from tf.cond",
    # TF 1.15 writes Keras checkpoints in two data shards, tfcluster in one (same keys).
    "save_and_load_weights": "files",
}


# Cases recorded but not yet matched, with what is known about why (strict: a fix shows).
# Cases known to differ from TF 1.15, with why (each an xfail that must start passing when fixed).
KNOWN_DRIFT: dict[str, str] = {}


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
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    elif isinstance(want, float) and isinstance(got, (float, int)):
        assert got == pytest.approx(want, rel=RTOL, abs=ATOL), f"{path}: {got} != TF's {want}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _run(name: str) -> Any:
    return decode(encode(CASES[name](tf)))


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_DRIFT[n], strict=True))
        if n in KNOWN_DRIFT
        else n
        for n in sorted(CASES)
    ],
)
def test_keras_program_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("keras", name)
    assert "skipped" not in want, want.get("skipped")
    got = _run(name)
    if name in NAMES_DIFFER:
        want = {k: v for k, v in want.items() if k not in ("tensors", "files")}
        got = {k: v for k, v in got.items() if k not in ("tensors", "files")}
    _same(got, want, name)
