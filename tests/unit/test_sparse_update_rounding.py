"""A variable's bits after sparse Adagrad, RMSProp and Keras Adagrad steps (a gather's
gradient, duplicate rows summed) match TF 1.15's CPU kernels: each row of a variable of rank 2
or more as one Eigen expression (lr * g * rsqrt(a); (ms + eps).rsqrt() * lr * g;
lr * g / (sqrt(a) + eps)), its whole packets of 8 by the fast-math root, the rest exactly; a
rank-1 variable's values as TF's loop over single values takes them. Recorded by
tests/tf_reference/record_sparse_update_rounding.py."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.sparse_update_rounding_cases import CASES

AREA = "sparse_update_rounding"


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_update_rounds_as_tf(name: str) -> None:
    expected = reference.case(AREA, name)["values"]
    actual = CASES[name](tf)["values"]
    assert len(actual) == len(expected)
    for step, (got, want) in enumerate(zip(actual, expected)):
        np.testing.assert_array_equal(
            np.float32(got), np.float32(want), err_msg=f"{name}, after step {step + 1}"
        )
