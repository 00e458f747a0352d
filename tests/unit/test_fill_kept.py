"""Fill hands out its last (small) output again, read-only, while its inputs are the very same
unchanging arrays (kernels/array.py): a loop's gradient fills zeros of one shape in every
iteration. Values stay TF's, a new shape or value gets a new array, clients get writable
copies, and a variable assigned the filled value is updated on a copy of its own."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tfcluster.framework import dtypes
from tfcluster.kernels.common import frozen
from tfcluster.runtime import float_errors, kernel_table
from tfcluster.runtime.graph_ir import Node


def _fill_kernel() -> object:
    node = Node(name="zeros", op="Fill", inputs=[], control_inputs=[], device="")
    node.attrs["T"] = dtypes.float32
    return kernel_table.lookup("Fill", "CPU").factory(node)


def test_the_same_shape_and_value_arrays_get_the_same_read_only_array() -> None:
    fill = _fill_kernel()
    shape = frozen(np.array([128, 32], np.int32))
    zero = frozen(np.array(0.0, np.float32))
    with float_errors.silence():
        (first,) = fill(None, [shape, zero])  # type: ignore[operator]
        (again,) = fill(None, [shape, zero])  # type: ignore[operator]
        (other_shape,) = fill(None, [frozen(np.array([2, 3], np.int32)), zero])  # type: ignore[operator]
        (other_value,) = fill(None, [shape, frozen(np.array(1.5, np.float32))])  # type: ignore[operator]
    assert again is first and not first.flags.writeable
    assert first.shape == (128, 32) and first.dtype == np.float32 and not first.any()
    assert other_shape.shape == (2, 3) and not other_shape.any()
    assert other_value is not first and (other_value == 1.5).all()


def test_inputs_that_may_change_get_a_fresh_writable_array() -> None:
    fill = _fill_kernel()
    shape = np.array([4], np.int32)  # writable: its values may change between calls
    zero = frozen(np.array(0.0, np.float32))
    with float_errors.silence():
        (first,) = fill(None, [shape, zero])  # type: ignore[operator]
        shape[0] = 5
        (second,) = fill(None, [shape, zero])  # type: ignore[operator]
    assert first.shape == (4,) and second.shape == (5,)
    assert first.flags.writeable and second.flags.writeable


def test_loop_gradients_through_clip_by_value_and_fetches_stay_as_before() -> None:
    x_val = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        _, y = tf.while_loop(
            lambda i, v: i < 3, lambda i, v: (i + 1, tf.clip_by_value(v * 1.5, -2.0, 2.0)), [0, x]
        )
        (dx,) = tf.gradients(tf.reduce_sum(y), [x])
        zeros = tf.zeros(tf.shape(x))
        v = tf.Variable(np.ones((3, 4), np.float32), validate_shape=False)
        assign = tf.assign(v, zeros, validate_shape=False)
        bump = tf.assign_add(v, tf.ones_like(x))
    want_y, want_dx = x_val, np.ones_like(x_val)
    for _ in range(3):
        pre = want_y * 1.5
        inside = (pre >= -2.0) & (pre <= 2.0)
        want_dx = want_dx * 1.5 * inside
        want_y = np.clip(pre, -2.0, 2.0)
    with tf.Session(graph=g) as sess:
        sess.run(v.initializer)
        for _ in range(2):
            got_y, got_dx, z = sess.run([y, dx, zeros], {x: x_val})
            np.testing.assert_allclose(got_y, want_y)
            np.testing.assert_allclose(got_dx, want_dx)
            z[0, 0] = 7.0  # the client's copy
        sess.run(assign, {x: x_val})
        sess.run(bump, {x: x_val})
        assert sess.run(zeros, {x: x_val}).tolist() == np.zeros((3, 4)).tolist()
        assert sess.run(v).tolist() == np.ones((3, 4)).tolist()
