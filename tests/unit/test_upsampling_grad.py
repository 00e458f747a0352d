"""The gradient of an integer nearest upsampling has TF 1.15's float32 bits (each output's
positions added in its kernel's loop order), by strided slices rather than sampling matrices
(tests/tf_reference/upsampling_grad_cases.py, recorded by record_upsampling_grad.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.upsampling_grad_cases import CASES


def test_nearest_upsampling_gradients_have_tfs_bits() -> None:
    want = reference.case("upsampling_grad", "nearest_upsampling_gradients")
    got = CASES["nearest_upsampling_gradients"](tf)
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key] == want[key], key
