"""Behaviours of a DCGAN program and a handwriting RNN against TF 1.15's recorded answers
(tests/tf_reference/record_gan_programs.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.gan_program_cases import CASES

AREA = "gan_programs"


def _check(case: str) -> None:
    reference.assert_case_equal(AREA, case, CASES[case](tf))


def test_large_normal_draws_have_tfs_bits() -> None:
    _check("large_normal_draws")


def test_summary_writer_graph_has_tfs_add_n_colocation_shapes_and_bad_color() -> None:
    _check("summary_writer_graph_of_a_training_step")


def test_gradient_shapes_come_from_evaluated_shape_arithmetic() -> None:
    _check("gradient_shapes_from_evaluated_shape_arithmetic")


def test_written_files_are_created_0666_less_the_umask() -> None:
    _check("modes_of_files_a_program_writes")


def test_assigned_values_comparisons_and_max_gradient_shapes_as_tf() -> None:
    _check("assigned_values_and_comparisons_in_the_graph")
