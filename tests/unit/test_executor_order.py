"""Steps that write a variable and read it with no order between the two give TF 1.15's
values: a read shallower than the write sees the variable from before the step, a write
ready first lands before a deeper read (tests/tf_reference/executor_order_cases.py, recorded
by record_executor_order.py on a warm TF 1.15 session)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.executor_order_cases import CASES

AREA = "executor_order"


def test_a_cost_fetched_beside_a_hand_written_update_reads_the_weight_from_before_it() -> None:
    assert CASES["assign_beside_cost"](tf) == reference.case(AREA, "assign_beside_cost")


def test_an_increment_lands_before_reads_deeper_than_it_whatever_the_fetch_order() -> None:
    expected = reference.case(AREA, "assign_add_beside_reads")
    assert CASES["assign_add_beside_reads"](tf) == expected


def test_backprop_assigning_every_layer_in_one_run_uses_the_old_second_layer() -> None:
    expected = reference.case(AREA, "hand_written_backprop")["first_layer_after_one_step"]
    actual = CASES["hand_written_backprop"](tf)["first_layer_after_one_step"]
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


def test_steps_without_such_a_race_keep_their_order() -> None:
    # A training step: every read of a weight is an input of its update, so the order is
    # the graph's own and the update sees the values the gradients were computed from.
    tf.reset_default_graph()
    w = tf.Variable([[1.0, 2.0]])
    x = tf.constant([[1.0], [3.0]])
    loss = tf.reduce_sum(tf.matmul(x, w) ** 2)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss)
        _, during = sess.run([train, loss])
        assert during == pytest.approx(before)
        assert sess.run(loss) < before


def test_reads_of_a_resource_variable_come_before_an_increment_beside_them() -> None:
    expected = reference.case(AREA, "assign_add_beside_resource_reads")
    assert CASES["assign_add_beside_resource_reads"](tf) == expected
