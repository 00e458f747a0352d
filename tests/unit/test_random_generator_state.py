"""tf.random.experimental.Generator's state: RngSkip moves it as far as a draw of that many
outputs does, and a state of another algorithm or shape is refused at run time."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf


def _ops_of_type(op_type: str) -> list[tf.Operation]:
    return [op for op in tf.get_default_graph().get_operations() if op.type == op_type]


def test_skip_moves_the_state_as_far_as_a_draw_of_that_many_outputs() -> None:
    with tf.Graph().as_default():
        skipped = tf.random.experimental.Generator.from_seed(11)
        drawn = tf.random.experimental.Generator.from_seed(11)
        skipped.skip(10)
        (skip_op,) = _ops_of_type("RngSkip")
        draw = drawn.uniform([10])
        after = skipped.normal([4])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([skip_op, draw])
            np.testing.assert_array_equal(sess.run(skipped.state), sess.run(drawn.state))
            assert sess.run(skipped.state)[0] == 11 + 10 * 256
            np.testing.assert_array_equal(sess.run(after), sess.run(drawn.normal([4])))


def test_a_state_of_another_shape_fails_the_draw_not_the_session() -> None:
    with tf.Graph().as_default():
        gen = tf.random.experimental.Generator.from_seed(1)
        sample = gen.normal([2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(gen.state, [1, 2], validate_shape=False))
            with pytest.raises(tf.errors.InvalidArgumentError, match="state of Philox"):
                sess.run(sample)
            sess.run(tf.assign(gen.state, [1, 2, 3], validate_shape=False))
            assert sess.run(sample).shape == (2,)


def test_draws_without_a_seed_differ_between_generators() -> None:
    with tf.Graph().as_default():
        a = tf.random.experimental.Generator.from_non_deterministic_state()
        b = tf.random.experimental.Generator.from_non_deterministic_state()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert not np.array_equal(sess.run(a.state), sess.run(b.state))
