"""Behaviours of public TF1 repositories against TF 1.15's recorded answers
(tests/tf_reference/record_repo_sweep.py): tf.one_hot's ops, hence later op seeds."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.repo_sweep_cases import CASES

AREA = "repo_sweep"


def test_one_hot_makes_tfs_ops_so_later_op_seeds_are_tfs() -> None:
    expected = reference.case(AREA, "one_hot_ops_and_later_seeds")
    actual = CASES["one_hot_ops_and_later_seeds"](tf)
    assert actual["ops"] == expected["ops"]
    assert actual["dtypes"] == expected["dtypes"]
    assert actual["errors"] == expected["errors"]
    # The random draw after the one_hot ops has TF's op seed, hence TF's numbers.
    assert actual["values"][:-1] == expected["values"][:-1]
    reference.assert_close(actual["values"][-1], expected["values"][-1], rtol=1e-6, atol=1e-7)


def test_loop_gradient_of_an_unused_unstack_output_keeps_later_op_seeds() -> None:
    expected = reference.case(AREA, "loop_gradient_of_an_unused_unstack_output")
    actual = CASES["loop_gradient_of_an_unused_unstack_output"](tf)
    *got, got_draw = actual["values"]
    *want, want_draw = expected["values"]
    for g, w in zip(got, want, strict=True):
        reference.assert_close(g, w, rtol=1e-4, atol=1e-5)
    # The draw after the gradient has TF's op seed, hence TF's numbers.
    reference.assert_close(got_draw, want_draw, rtol=1e-6, atol=1e-7)


def test_loop_gradient_of_loop_variables_no_xs_reach_keeps_later_op_seeds() -> None:
    expected = reference.case(AREA, "loop_gradient_of_loop_variables_no_xs_reach")
    actual = CASES["loop_gradient_of_loop_variables_no_xs_reach"](tf)
    for form in ("reads_steps", "doubles"):
        *got, got_draw = actual[form]["values"]
        *want, want_draw = expected[form]["values"]
        for g, w in zip(got, want, strict=True):
            reference.assert_close(g, w, rtol=1e-4, atol=1e-5)
        reference.assert_close(got_draw, want_draw, rtol=1e-6, atol=1e-7)
