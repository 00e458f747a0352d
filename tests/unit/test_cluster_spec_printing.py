"""A ClusterSpec prints as TF 1.15's: str() "ClusterSpec({...})" with sorted jobs, repr() the
default object form (what a RunConfig's "Using config" line shows), compared with TF 1.15's
recorded answers without module path and address
(tests/tf_reference/record_cluster_spec_repr.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.cluster_spec_repr_cases import CASES

AREA = "cluster_spec_repr"


@pytest.mark.parametrize("name", sorted(CASES))
def test_cluster_spec_prints_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
