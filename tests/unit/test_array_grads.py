"""Gradients of the array ops against finite differences (float64, small sizes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match

RNG = np.random.default_rng(11)


def rand(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


CASES: dict[str, tuple[Any, list[np.ndarray]]] = {
    "identity": (lambda x: tf.identity(x) * x, [rand(3)]),
    "placeholder_with_default": (
        lambda x: tf.placeholder_with_default(x, [2, 2]) ** 2,
        [rand(2, 2)],
    ),
    "reshape": (lambda x: tf.reshape(x, [3, -1]) * tf.range(4, dtype=tf.float64), [rand(2, 6)]),
    "transpose": (lambda x: tf.transpose(x, [2, 0, 1]), [rand(2, 3, 4)]),
    "transpose_default": (lambda x: tf.transpose(x), [rand(2, 3)]),
    "concat": (lambda x, y: tf.concat([x, y, x], 1), [rand(2, 3), rand(2, 1)]),
    "concat_neg_axis": (lambda x, y: tf.concat([x, y], -2), [rand(1, 3), rand(2, 3)]),
    "stack": (lambda x, y: tf.stack([x, y], axis=1), [rand(2, 3), rand(2, 3)]),
    "unstack": (lambda x: tf.unstack(x, axis=1)[1] * 3.0, [rand(2, 3)]),
    "unstack_all": (lambda x: tf.add_n(tf.unstack(x)) ** 2, [rand(3, 2)]),
    "split": (lambda x: tf.split(x, 2, axis=1)[1] * 2.0, [rand(3, 4)]),
    "split_all": (lambda x: tf.concat(tf.split(x, 3)[::-1], 0) ** 2, [rand(3, 2)]),
    "split_v": (lambda x: tf.split(x, [1, -1], axis=0)[1], [rand(3, 2)]),
    "slice": (lambda x: tf.slice(x, [1, 0, 1], [1, -1, 2]), [rand(2, 3, 4)]),
    "strided_slice": (lambda x: x[1:, ::-2, None, 2], [rand(3, 4, 5)]),
    "strided_slice_ellipsis": (lambda x: x[..., 1] * x[0], [rand(3, 3)]),
    "gather": (lambda x: tf.gather(x, [2, 0, 2]), [rand(3, 2)]),
    "gather_axis1": (lambda x: tf.gather(x, [[1, 1], [0, 2]], axis=1), [rand(2, 3, 2)]),
    "gather_axis_neg": (lambda x: tf.gather(x, [1, 1, 0], axis=-1), [rand(2, 2)]),
    "gather_nd": (lambda x: tf.gather_nd(x, [[1, 0], [1, 0], [0, 2]]), [rand(2, 3, 2)]),
    "scatter_nd": (lambda u: tf.scatter_nd([[1], [0], [1]], u, [3, 2]), [rand(3, 2)]),
    "tile": (lambda x: tf.tile(x, [2, 1, 3]), [rand(2, 2, 1)]),
    "expand_dims": (lambda x: tf.expand_dims(x, 1) * tf.ones([1, 2, 1], tf.float64), [rand(3, 2)]),
    "squeeze": (lambda x: tf.squeeze(x, [0]), [rand(1, 3)]),
    "reverse": (lambda x: tf.reverse(x, [1]) * x, [rand(2, 3)]),
    "pad": (lambda x: tf.pad(x, [[1, 0], [2, 1]]), [rand(2, 3)]),
    "pad_v2": (lambda x: tf.pad(x, [[0, 2]], constant_values=3.0) ** 2, [rand(3)]),
    "mirror_pad_reflect": (lambda x: tf.pad(x, [[2, 1], [1, 2]], mode="REFLECT"), [rand(3, 4)]),
    "mirror_pad_symmetric": (lambda x: tf.pad(x, [[3, 2]], mode="SYMMETRIC"), [rand(3)]),
    "fill_value": (
        lambda x: tf.fill([2, 3], tf.reduce_sum(x)) * tf.range(3, dtype=tf.float64),
        [rand(2)],
    ),
    "boolean_mask": (lambda x: tf.boolean_mask(x, [[True, False], [True, True]]), [rand(2, 2, 2)]),
    "where_select": (lambda x, y: tf.where([True, False, True], x, y), [rand(3), rand(3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name: str) -> None:
    build, inputs = CASES[name]
    assert_gradients_match(build, inputs)


def test_gather_gradient_with_dynamic_axis() -> None:
    def build(x: tf.Tensor) -> tf.Tensor:
        axis = tf.placeholder_with_default(np.int32(1), [])
        return tf.gather(x, [2, 0, 2], axis=axis)

    assert_gradients_match(build, [rand(2, 3, 2)])


def test_gradients_with_unknown_shapes() -> None:
    x = tf.placeholder(tf.float64, [None, 3])
    y = tf.concat([x[:, 1:], tf.gather(x, [0], axis=1)], 1)
    z = tf.reduce_sum(tf.tile(tf.reshape(y, [-1]), [2]) * 2.0)
    (g,) = tf.gradients(z, x)
    assert g.shape.is_compatible_with([None, 3])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: rand(4, 3)}), np.full((4, 3), 4.0))


def test_gradient_op_types() -> None:
    x = tf.placeholder(tf.float32, [4, 3])
    gs = tf.gradients(tf.reduce_sum(x[1:3] + tf.gather(x, [0, 0])), x)
    ops = {op.type for op in tf.get_default_graph().get_operations()}
    # The gather's IndexedSlices meets the slice's dense gradient: summed densely, as in TF.
    assert {"StridedSliceGrad", "UnsortedSegmentSum", "AddN"} <= ops
    with tf.Session() as sess:
        g = sess.run(gs[0], {x: np.zeros((4, 3))})
    np.testing.assert_array_equal(g, np.array([[2] * 3, [1] * 3, [1] * 3, [0] * 3], np.float32))


def test_non_differentiable_ops_give_no_gradient() -> None:
    x = tf.constant([1.0, 2.0])
    idx = tf.constant([0, 1])
    y = tf.one_hot(idx, 2) * x + tf.cast(tf.shape(x)[0], tf.float32)
    (gx, gi) = tf.gradients(tf.reduce_sum(y), [x, idx])
    assert gi is None
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(gx), [1.0, 1.0])


def test_second_order_strided_slice() -> None:
    def build(x: tf.Tensor) -> tf.Tensor:
        (g,) = tf.gradients(tf.reduce_sum(x[1:] ** 3), x)
        return g

    assert_gradients_match(build, [rand(3)])


def test_gradients_with_unknown_rank_and_dynamic_axis() -> None:
    q = tf.placeholder(tf.float64)
    ax = tf.placeholder_with_default(0, [])
    targets = [
        tf.concat([q, q], ax),
        tf.gather(q, [1, 1], axis=ax),
        tf.slice(q, [0, 1], [-1, 1]),
        tf.tile(q, [2, 2]),
        tf.pad(q, [[1, 1], [0, 2]], mode="REFLECT"),
        tf.transpose(q),
    ]
    grads = [tf.gradients(tf.reduce_sum(t), q)[0] for t in targets]
    with tf.Session() as sess:
        got = sess.run(grads, {q: np.ones((2, 3))})
    ones = np.ones((2, 3))
    expected = [
        2 * ones,
        np.array([[0.0] * 3, [2.0] * 3]),
        np.array([[0.0, 1.0, 0.0]] * 2),
        4 * ones,
        np.array([[4.0, 4.0, 2.0]] * 2),
        ones,
    ]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
