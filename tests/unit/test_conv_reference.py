"""Convolutions, pooling and space/batch rearrangements against TensorFlow 1.15: every
program of tf_reference/conv_cases.py runs on tfcluster and must give what TensorFlow gave
(output values, first and second order gradients, the names and types of the ops it makes,
argmax indices, error classes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.codec import decode, encode
from tf_reference.conv_cases import CASES

# Cases that tfcluster's CPU kernels compute by Winograd's tiles: float32 results are off by a
# few 1e-6 of the array's largest magnitude (the tiles' transforms mix values of different
# sizes), not of each element's, so small elements of an array with large ones are compared
# within 1e-4 of that magnitude (TF's float32 tolerance, as its GPU tests allow cuDNN's
# Winograd algorithms), the rest as everywhere.
_WINOGRAD_CASES = {
    "conv2d_3x3_same_many_channels",
    "conv2d_5x5_same_many_channels",
    "conv2d_5x5_valid_odd_sizes",
}


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and "error" in want and isinstance(got, dict):
        assert got.get("error") == want["error"], f"{path}: {got} != TF's {want}"
        return
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
        if w.dtype.kind == "f":
            tol = 1e-4 if w.dtype == np.float32 else 1e-10
            atol = tol
            if path.split(".")[0] in _WINOGRAD_CASES and w.size:
                atol = tol * max(1.0, float(np.abs(w).max()))
            np.testing.assert_allclose(g, w, rtol=tol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(g, w, err_msg=path)
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_gives_what_tensorflow_gave(name: str) -> None:
    want = reference.case("conv", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    _same(got, want, name)


def test_a_window_larger_than_its_input_fails_with_tf_message() -> None:
    """The kernels' message for an output size below zero is TF's, word for word."""
    want = reference.case("conv", "run_time_errors")
    got = decode(encode(CASES["run_time_errors"](tf)))
    for key in ("conv_too_small", "pool_too_small"):
        assert got[key] == want[key], f"{key}: {got[key]} != TF's {want[key]}"
