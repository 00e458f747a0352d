"""Gradients of the tf.nn ops against finite differences (float64, small sizes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match

RNG = np.random.default_rng(99)


def away_from(
    points: list[float], shape: tuple[int, ...], low: float = -3, high: float = 3, gap: float = 0.05
) -> np.ndarray:
    """Random values that keep clear of an activation's kinks (finite differences fail there)."""
    x = RNG.uniform(low, high, size=shape)
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + np.where(x[near] >= p, gap, -gap) * 2
    return x


def distinct(shape: tuple[int, ...]) -> np.ndarray:
    """Values with clear gaps so max-pool's argmax is stable under finite differences."""
    return RNG.permutation(np.prod(shape)).reshape(shape) * 0.1 + RNG.uniform(0, 0.01, size=shape)


def softmax_np(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ---- activations ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn,kinks",
    [
        (tf.nn.relu, [0.0]),
        (tf.nn.relu6, [0.0, 6.0]),
        (tf.nn.elu, [0.0]),
        (tf.nn.selu, [0.0]),
        (tf.nn.softplus, []),
        (tf.nn.softsign, [0.0]),
        (lambda x: tf.nn.leaky_relu(x, alpha=0.3), [0.0]),
    ],
    ids=["relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu"],
)
def test_activation_gradients(fn: Any, kinks: list[float]) -> None:
    x = away_from(kinks, (3, 4), low=-7, high=8)
    assert_gradients_match(fn, [x])


def test_relu_gradient_is_zero_for_negative_inputs() -> None:
    x = tf.constant([-2.0, -0.5, 0.5, 2.0])
    (g,) = tf.gradients(tf.reduce_sum(tf.nn.relu(x)), x)
    assert g.op.type == "ReluGrad"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g), [0.0, 0.0, 1.0, 1.0])


def test_relu_second_order_through_relu_grad() -> None:
    # d/dx of ReluGrad(dy, relu(x)) w.r.t. dy: the mask itself.
    def build(dy: Any) -> Any:
        x = tf.constant(np.array([[-1.0, 2.0], [3.0, -4.0]]))
        return tf.gradients(tf.nn.relu(x), x, grad_ys=dy)[0]

    assert_gradients_match(build, [RNG.normal(size=(2, 2))])


# ---- softmax and losses -----------------------------------------------------------------
def test_softmax_gradient() -> None:
    assert_gradients_match(tf.nn.softmax, [RNG.normal(size=(3, 5))])


def test_log_softmax_gradient() -> None:
    assert_gradients_match(tf.nn.log_softmax, [RNG.normal(size=(3, 5))])


def test_softmax_gradient_over_leading_axis() -> None:
    assert_gradients_match(lambda x: tf.nn.softmax(x, axis=0), [RNG.normal(size=(4, 3))])


def test_softmax_cross_entropy_v2_gradient_flows_to_both_inputs() -> None:
    logits = RNG.normal(size=(3, 4))
    labels = softmax_np(RNG.normal(size=(3, 4)))
    assert_gradients_match(
        lambda lab, lg: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=lg),
        [labels, logits],
    )


def test_softmax_cross_entropy_v1_gradient_to_logits() -> None:
    labels = softmax_np(RNG.normal(size=(3, 4)))
    assert_gradients_match(
        lambda lg: tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=lg),
        [RNG.normal(size=(3, 4))],
    )


def test_softmax_cross_entropy_rank3_gradient() -> None:
    labels = softmax_np(RNG.normal(size=(2, 2, 3)))
    assert_gradients_match(
        lambda lg: tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=tf.constant(labels), logits=lg
        ),
        [RNG.normal(size=(2, 2, 3))],
    )


def test_softmax_cross_entropy_gradient_through_both_outputs() -> None:
    # Using the backprop output too exercises the grad_grad branch of the logits' gradient.
    from tfcluster.ops.op_util import make_op

    labels = softmax_np(RNG.normal(size=(3, 4)))

    def build(logits: Any) -> Any:
        op = make_op(
            "SoftmaxCrossEntropyWithLogits", [logits, tf.constant(labels)], {"T": tf.float64}
        )
        loss, backprop = op.outputs
        return tf.reshape(loss, [-1, 1]) + backprop

    assert_gradients_match(build, [RNG.normal(size=(3, 4))])


def test_softmax_cross_entropy_labels_gradient_ignores_the_backprop_output_as_tf() -> None:
    # TF 1.15's gradient for the labels is grad_loss * -log_softmax(logits) alone, also when
    # the backprop output is differentiated (nn_grad._SoftmaxCrossEntropyWithLogitsGrad).
    from tfcluster.ops.op_util import make_op

    logits_v = RNG.normal(size=(3, 4))
    labels = tf.constant(softmax_np(RNG.normal(size=(3, 4))))
    op = make_op(
        "SoftmaxCrossEntropyWithLogits", [tf.constant(logits_v), labels], {"T": tf.float64}
    )
    loss, backprop = op.outputs
    (g,) = tf.gradients(tf.reduce_sum(loss) + tf.reduce_sum(backprop), [labels])
    with tf.Session() as sess:
        got = sess.run(g)
    shifted = logits_v - logits_v.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(got, -log_softmax, rtol=1e-12)


def test_sparse_softmax_cross_entropy_gradient() -> None:
    labels = np.array([0, 3, 1], dtype=np.int32)
    assert_gradients_match(
        lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(labels), logits=lg
        ),
        [RNG.normal(size=(3, 4))],
    )


def test_sparse_softmax_cross_entropy_rank3_gradient() -> None:
    labels = np.array([[0, 2], [1, 1]], dtype=np.int64)
    assert_gradients_match(
        lambda lg: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(labels), logits=lg
        ),
        [RNG.normal(size=(2, 2, 3))],
    )


def test_sigmoid_cross_entropy_gradient() -> None:
    x = away_from([0.0], (3, 4))
    z = RNG.uniform(0, 1, size=(3, 4))
    assert_gradients_match(
        lambda lab, lg: tf.nn.sigmoid_cross_entropy_with_logits(labels=lab, logits=lg), [z, x]
    )


def test_l2_loss_gradient() -> None:
    assert_gradients_match(tf.nn.l2_loss, [RNG.normal(size=(3, 4))])


@pytest.mark.parametrize("data_format,shape", [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 2, 2))])
def test_bias_add_gradient(data_format: str, shape: tuple[int, ...]) -> None:
    channels = shape[-1] if data_format == "NHWC" else shape[1]
    assert_gradients_match(
        lambda x, b: tf.nn.bias_add(x, b, data_format=data_format),
        [RNG.normal(size=shape), RNG.normal(size=(channels,))],
    )


def test_bias_add_gradient_uses_bias_add_grad() -> None:
    x = tf.placeholder(tf.float32, [None, 3])
    b = tf.constant(np.zeros(3, np.float32))
    _, gb = tf.gradients(tf.nn.bias_add(x, b), [x, b])
    assert gb.op.type == "BiasAddGrad" and gb.shape.as_list() == [3]


# ---- convolution ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x_shape,w_shape,strides,padding,dilations",
    [
        ((1, 5, 5, 2), (3, 3, 2, 2), (1, 1), "SAME", (1, 1)),
        ((2, 5, 4, 1), (2, 2, 1, 2), (2, 2), "SAME", (1, 1)),
        ((1, 5, 6, 2), (3, 2, 2, 1), (2, 1), "VALID", (1, 1)),
        ((1, 6, 6, 1), (2, 2, 1, 2), (1, 1), "SAME", (2, 2)),
    ],
)
def test_conv2d_gradients(
    x_shape: Any, w_shape: Any, strides: Any, padding: str, dilations: Any
) -> None:
    assert_gradients_match(
        lambda x, w: tf.nn.conv2d(
            x, w, strides=[1, *strides, 1], padding=padding, dilations=[1, *dilations, 1]
        ),
        [RNG.normal(size=x_shape), RNG.normal(size=w_shape)],
    )


def test_conv2d_gradient_op_types_and_shapes() -> None:
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    w = tf.constant(np.zeros((3, 3, 3, 4), np.float32))
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    gx, gw = tf.gradients(tf.reduce_sum(y), [x, w])
    assert gx.op.type == "Conv2DBackpropInput" and gw.op.type == "Conv2DBackpropFilter"
    assert gw.shape.as_list() == [3, 3, 3, 4]


def test_conv2d_transpose_gradients() -> None:
    assert_gradients_match(
        lambda v, w: tf.nn.conv2d_transpose(v, w, [1, 5, 5, 2], [1, 2, 2, 1], padding="SAME"),
        [RNG.normal(size=(1, 3, 3, 3)), RNG.normal(size=(3, 3, 2, 3))],
    )


def test_conv2d_backprop_filter_gradients() -> None:
    assert_gradients_match(
        lambda x, dy: tf.nn.conv2d_backprop_filter(x, [2, 2, 2, 3], dy, [1, 1, 1, 1], "VALID"),
        [RNG.normal(size=(1, 4, 4, 2)), RNG.normal(size=(1, 3, 3, 3))],
    )


# ---- pooling ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x_shape,k,s,padding",
    [
        ((1, 4, 4, 2), (2, 2), (2, 2), "VALID"),
        ((2, 5, 5, 1), (2, 2), (2, 2), "SAME"),
        ((1, 5, 4, 2), (3, 3), (1, 2), "SAME"),
    ],
)
def test_pool_gradients(x_shape: Any, k: Any, s: Any, padding: str) -> None:
    kw = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding}
    assert_gradients_match(lambda x: tf.nn.max_pool(x, **kw), [distinct(x_shape)])
    assert_gradients_match(lambda x: tf.nn.avg_pool(x, **kw), [RNG.normal(size=x_shape)])


def test_max_pool_gradient_goes_to_the_first_maximum() -> None:
    x = tf.constant(np.array([[1.0, 3.0], [3.0, 0.0]]).reshape(1, 2, 2, 1))
    (g,) = tf.gradients(tf.nn.max_pool(x, 2, 2, "VALID"), x)
    assert g.op.type == "MaxPoolGrad"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g).reshape(2, 2), [[0.0, 1.0], [0.0, 0.0]])


# ---- normalisation ----------------------------------------------------------------------
def test_l2_normalize_gradient() -> None:
    assert_gradients_match(lambda x: tf.nn.l2_normalize(x, axis=1), [RNG.normal(size=(3, 4))])


def test_moments_gradients() -> None:
    assert_gradients_match(lambda x: tf.nn.moments(x, axes=[0])[0], [RNG.normal(size=(4, 3))])
    assert_gradients_match(lambda x: tf.nn.moments(x, axes=[0])[1], [RNG.normal(size=(4, 3))])


def test_in_top_k_has_no_gradient() -> None:
    p = tf.constant(np.ones((2, 3), np.float32))
    hit = tf.cast(tf.nn.in_top_k(p, tf.constant([0, 1]), 1), tf.float32)
    assert tf.gradients(hit, p) == [None]
