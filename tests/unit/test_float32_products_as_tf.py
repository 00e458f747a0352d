"""Float32 matrix products rounded as TF 1.15's CPU kernels round them, against its recorded
bits (tests/tf_reference/record_float32_products.py): MKL-DNN's sgemm order for products of
2 to 8 output columns, and grappler's MatMul -> BiasAdd fusion, whose product is that sgemm's
even for a dense layer of one unit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.float32_product_cases import CASES

AREA = "float32_products"


def _bits(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=np.float32).view(np.uint32)


def _same_bits(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = actual[name]
        pairs = zip(got, want) if name.startswith("apart_") else [(got, want)]
        for g, w in pairs:
            np.testing.assert_array_equal(_bits(g), _bits(w), name)


def test_narrow_products_sum_as_tfs_sgemm() -> None:
    _same_bits(CASES["narrow_products"](tf), reference.case(AREA, "narrow_products"))


def test_a_product_feeding_only_a_bias_add_is_fused_as_tfs_remapper_fuses_it() -> None:
    name = "products_feeding_a_bias_add"
    _same_bits(CASES[name](tf), reference.case(AREA, name))


@pytest.mark.parametrize("step", range(6))
def test_a_keras_dense_layer_of_one_unit_trains_to_tfs_bits(step: int) -> None:
    name = "keras_dense_of_one_unit_trains_as_tf"
    actual = CASES[name](tf)["steps"][step]
    expected = reference.case(AREA, name)["steps"][step]
    for got, want in zip(actual, expected):
        np.testing.assert_array_equal(_bits(got), _bits(want))
