"""Behaviours of public TF1 generative and sequence programs against TF 1.15's recorded answers
(tests/tf_reference/record_generative_sweep.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.generative_sweep_cases import CASES

AREA = "generative_sweep"


def test_batched_matrix_vector_products_sum_in_eigens_order() -> None:
    name = "batched_matrix_vector_products"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert actual["types"] == expected["types"]
    assert sorted(actual["values"]) == sorted(expected["values"])
    apart = [
        product
        for product, want in expected["values"].items()
        if not np.array_equal(np.asarray(actual["values"][product]), np.asarray(want))
    ]
    # Bit for bit: Eigen's running sums and matrix-vector orders, not BLAS's.
    assert apart == []
