"""tf.keras.experimental.SequenceFeatures builds TF 1.15's graph: the same op names (no scope
doubled), the same error naming the lengths that differ, and the same op count before a
later seeded draw (tests/tf_reference/sequence_features_names_cases.py, recorded by
record_sequence_features_names.py under TF 1.15)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.sequence_features_names_cases import CASES

AREA = "sequence_features_names"


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence_features_as_tf_builds_it(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
