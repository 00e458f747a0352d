"""Behaviours of Stanford's CS20 and MorvanZhou's TF1 tutorials against TF 1.15's recorded
answers (tests/tf_reference/record_public_sweep2.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.public_sweep2_cases import CASES

AREA = "public_sweep2"


def _bits(values: list[np.ndarray]) -> list[list[str]]:
    return [[float(v).hex() for v in np.asarray(a).ravel()] for a in values]


def test_matmul_with_one_output_column_sums_as_tfs_matrix_vector_product() -> None:
    expected = reference.case(AREA, "matmul_one_output_column")["values"]
    actual = CASES["matmul_one_output_column"](tf)["values"]
    assert [a.dtype for a in actual] == [np.asarray(e).dtype for e in expected]
    assert [a.shape for a in actual] == [np.asarray(e).shape for e in expected]
    # TF's bits, not BLAS's (which differ in the last place for about half the outputs).
    assert _bits(actual) == _bits(expected)
