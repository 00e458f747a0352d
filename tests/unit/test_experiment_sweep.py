"""Behaviours of small public TF1 experiment scripts (gradients, queues, sessions, input
pipelines) against TF 1.15's recorded answers (tests/tf_reference/record_experiment_sweep.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.experiment_sweep_cases import CASES

AREA = "experiment_sweep"


def _close(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        np.testing.assert_allclose(actual[key], want, rtol=1e-6, atol=1e-7, err_msg=key)


def test_a_print_in_a_cond_branch_passes_its_gradient_through() -> None:
    _close("gradient_through_print_in_a_cond_branch")


def test_queue_runner_threads_are_named_after_queue_and_enqueue_op() -> None:
    name = "queue_runner_thread_names"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_private_queue_ids_count_across_sessions_and_graphs() -> None:
    name = "private_queue_names_across_sessions"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_a_step_past_its_timeout_fails_as_the_session_not_a_node() -> None:
    name = "step_timeouts_name_no_node"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_summary_iterator_announces_tf_record_iterator_once() -> None:
    name = "summary_iterator_announces_tf_record_iterator"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_resource_variable_ops_module_by_path() -> None:
    name = "resource_variable_ops_module"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_resource_variable_ops_module_names_what_it_lacks() -> None:
    from tfcluster.python.ops import resource_variable_ops

    with pytest.raises(
        tf.errors.UnimplementedError, match=r"resource_variable_ops\.variable_accessed"
    ):
        resource_variable_ops.variable_accessed  # noqa: B018


def test_a_print_nested_in_a_cond_passes_its_gradient_through() -> None:
    _close("gradient_through_print_nested_in_a_cond")
