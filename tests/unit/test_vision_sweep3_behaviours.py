"""Behaviours of public TF1 vision programs against TF 1.15's recorded answers, third sweep
(tests/tf_reference/record_vision_sweep3.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.vision_sweep3_cases import CASES

AREA = "vision_sweep3"


def test_float64_products_over_two_or_three_terms_round_each_product_and_sum_as_tf() -> None:
    name = "float64_products_of_depth_two_and_three"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert actual["types"] == expected["types"]
    assert sorted(actual["values"]) == sorted(expected["values"])
    for product, want in expected["values"].items():
        # Bit for bit: TF's running sum of rounded products, not BLAS's fused multiply-adds.
        np.testing.assert_array_equal(
            np.asarray(actual["values"][product]), np.asarray(want), product
        )
