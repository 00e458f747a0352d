"""What constructing a canned classifier does to the default graph, against TF 1.15's
recorded answers (tests/tf_reference/record_classifier_constructors.py): more than two
classes are validated with ops in the default graph (names taken there, a finalized graph
refusing them)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.classifier_constructor_cases import CASES

AREA = "classifier_constructors"


@pytest.mark.parametrize("name", sorted(CASES))
def test_classifier_constructors_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
