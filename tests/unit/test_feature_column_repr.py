"""Feature columns print as TF 1.15's (tests/tf_reference/record_feature_column_repr.py): each
column's namedtuple repr under TF's class name, nested columns inside, and the identity
column's `number_buckets` field."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.feature_column_repr_cases import CASES

AREA = "feature_column_repr"


@pytest.mark.parametrize("name", sorted(CASES))
def test_feature_column_prints_as_tfs(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
