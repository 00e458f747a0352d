"""Float32 products whose contracted dimension TF 1.15 cuts in blocks, against TF's recorded
bits (tests/tf_reference/record_float32_blocked_products.py): narrow MatMuls of a few
hundred to a few thousand terms, every transpose, taken in Eigen's blocks on one thread or
sharded by the contracted dimension over two, and a one-unit dense layer fused with its
BiasAdd."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.float32_blocked_product_cases import CASES

AREA = "float32_blocked_products"


@pytest.mark.parametrize("name", sorted(CASES))
def test_blocked_products_have_tfs_bits(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key] == want, key
