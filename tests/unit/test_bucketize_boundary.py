"""Values on Bucketize boundaries land in TF 1.15's buckets
(tests/tf_reference/record_bucketize_boundary.py): float32 comparison with the float32
boundaries of the list(float) attr for float, int32 and int64 inputs, float64 for doubles."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.bucketize_boundary_cases import CASES

AREA = "bucketize_boundary"


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_on_boundaries_bucket_as_tfs(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
