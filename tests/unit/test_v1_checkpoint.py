"""What a Saver writing the V1 checkpoint format logs at each save, and what a restore missing a
key says, against TF 1.15's recorded
answers (tests/tf_reference/record_v1_checkpoint.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.v1_checkpoint_cases import CASES

AREA = "v1_checkpoint"


@pytest.mark.parametrize("name", sorted(CASES))
def test_v1_format_saves_and_restores_as_tf(name: str) -> None:
    expected = reference.case(AREA, name)
    assert "skipped" not in expected, expected
    same(CASES[name](tf), expected, name)
