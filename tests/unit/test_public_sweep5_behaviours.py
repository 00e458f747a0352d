"""Behaviours of public TF1 programs (a super-resolution GAN, a DQN agent, an RL library's
utilities) against TF 1.15's recorded answers (tests/tf_reference/record_public_sweep5.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.public_sweep5_cases import CASES

AREA = "public_sweep5"


def test_a_summary_name_with_illegal_characters_is_cleaned_and_logged_at_info() -> None:
    name = "summary_names_with_illegal_characters"
    reference.assert_case_equal(AREA, name, CASES[name](tf))
