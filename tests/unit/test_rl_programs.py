"""Behaviour of public TF1 reinforcement-learning programs that differed on tfcluster, against
TF 1.15's recorded answers (tests/tf_reference/record_rl_programs.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.rl_program_cases import CASES

AREA = "rl_programs"


@pytest.mark.parametrize("optimizer", ["adagrad", "rmsprop", "rmsprop_centered"])
def test_optimizer_slot_initializers_are_tfs_ops_so_later_seeded_draws_match(
    optimizer: str,
) -> None:
    expected = reference.case(AREA, "optimizer_slots_then_seeded_draws")[optimizer]
    actual = CASES["optimizer_slots_then_seeded_draws"](tf)[optimizer]
    assert actual["slot_ops"] == expected["slot_ops"]
    reference.assert_close(actual["after"], expected["after"], rtol=1e-6)
    reference.assert_close(actual["losses"], expected["losses"], rtol=1e-5)
