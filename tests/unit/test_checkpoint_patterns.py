"""Checkpoint prefixes matched as TF 1.15's file patterns ('\\' escapes, '[...]' is a class):
restore, checkpoint_exists, latest_checkpoint and the deletion of old checkpoints, and the
whole-second mtimes of get_checkpoint_mtimes, against TF's recorded answers
(tests/tf_reference/record_checkpoint_patterns.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.checkpoint_pattern_cases import CASES

AREA = "checkpoint_patterns"


@pytest.mark.parametrize(
    "name", ["prefix_with_a_backslash", "prefix_with_brackets", "prefix_with_a_question_mark"]
)
def test_a_prefix_with_pattern_characters_is_matched_as_tf_matches_it(name: str) -> None:
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_a_plain_prefix_is_restored_and_its_old_checkpoints_deleted() -> None:
    reference.assert_case_equal(AREA, "plain_prefix", CASES["plain_prefix"](tf))


def test_checkpoint_mtimes_are_whole_seconds() -> None:
    reference.assert_case_equal(
        AREA, "mtimes_are_whole_seconds", CASES["mtimes_are_whole_seconds"](tf)
    )
