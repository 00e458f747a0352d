"""Behaviours of a machine-learning book's TF1 chapter notebooks against TF 1.15's recorded
answers (tests/tf_reference/record_handson_programs.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.handson_program_cases import CASES

AREA = "handson_programs"


def _check(case: str) -> None:
    reference.assert_case_equal(AREA, case, CASES[case](tf))


def test_reductions_over_all_axes_make_their_axes_in_the_default_graph() -> None:
    _check("reductions_over_all_axes_of_another_graphs_tensor")
