"""tf.nn ops: values against numpy references (plain loops for conv/pool), static shapes,
dtypes, node names, and the errors bad input gets."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import tfcluster as tf

RNG = np.random.default_rng(1234)


def run(fetches: Any, feed: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# ---- numpy references ------------------------------------------------------------------
def np_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def geometry(size: int, k: int, stride: int, dilation: int, padding: str) -> tuple[int, int]:
    """(output size, padding before) as TF's docs define them."""
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        return math.ceil((size - eff + 1) / stride), 0
    out = math.ceil(size / stride)
    return out, max((out - 1) * stride + eff - size, 0) // 2


def conv2d_ref(
    x: np.ndarray,
    w: np.ndarray,
    strides: tuple[int, int],
    padding: str,
    dilations: tuple[int, int] = (1, 1),
) -> np.ndarray:
    n, h, wd, _ = x.shape
    kh, kw, _, co = w.shape
    oh, pt = geometry(h, kh, strides[0], dilations[0], padding)
    ow, pl = geometry(wd, kw, strides[1], dilations[1], padding)
    out = np.zeros((n, oh, ow, co))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for p in range(kh):
                    for q in range(kw):
                        r = i * strides[0] - pt + p * dilations[0]
                        c = j * strides[1] - pl + q * dilations[1]
                        if 0 <= r < h and 0 <= c < wd:
                            out[b, i, j] += x[b, r, c] @ w[p, q]
    return out


def conv2d_backprop_input_ref(
    dy: np.ndarray, w: np.ndarray, in_shape: tuple[int, ...], strides: tuple[int, int], padding: str
) -> np.ndarray:
    n, h, wd, _ = in_shape
    kh, kw, _, _ = w.shape
    _, pt = geometry(h, kh, strides[0], 1, padding)
    _, pl = geometry(wd, kw, strides[1], 1, padding)
    dx = np.zeros(in_shape)
    for b in range(n):
        for i in range(dy.shape[1]):
            for j in range(dy.shape[2]):
                for p in range(kh):
                    for q in range(kw):
                        r, c = i * strides[0] - pt + p, j * strides[1] - pl + q
                        if 0 <= r < h and 0 <= c < wd:
                            dx[b, r, c] += w[p, q] @ dy[b, i, j]
    return dx


def conv2d_backprop_filter_ref(
    x: np.ndarray, dy: np.ndarray, w_shape: tuple[int, ...], strides: tuple[int, int], padding: str
) -> np.ndarray:
    n, h, wd, _ = x.shape
    kh, kw, _, _ = w_shape
    _, pt = geometry(h, kh, strides[0], 1, padding)
    _, pl = geometry(wd, kw, strides[1], 1, padding)
    dw = np.zeros(w_shape)
    for b in range(n):
        for i in range(dy.shape[1]):
            for j in range(dy.shape[2]):
                for p in range(kh):
                    for q in range(kw):
                        r, c = i * strides[0] - pt + p, j * strides[1] - pl + q
                        if 0 <= r < h and 0 <= c < wd:
                            dw[p, q] += np.outer(x[b, r, c], dy[b, i, j])
    return dw


def pool_ref(
    x: np.ndarray, k: tuple[int, int], s: tuple[int, int], padding: str, reduce: Any
) -> np.ndarray:
    """Pooling over the valid (unpadded) part of each window."""
    n, h, w, c = x.shape
    oh, pt = geometry(h, k[0], s[0], 1, padding)
    ow, pl = geometry(w, k[1], s[1], 1, padding)
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            window = x[:, max(r0, 0) : r0 + k[0], max(c0, 0) : c0 + k[1], :]
            out[:, i, j, :] = reduce(window, axis=(1, 2))
    return out


# ---- activations -----------------------------------------------------------------------
SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805
ACTIVATIONS = [
    (tf.nn.relu, "Relu", lambda x: np.maximum(x, 0)),
    (tf.nn.relu6, "Relu6", lambda x: np.minimum(np.maximum(x, 0), 6)),
    (tf.nn.elu, "Elu", lambda x: np.where(x < 0, np.exp(x) - 1, x)),
    (tf.nn.selu, "Selu", lambda x: SELU_S * np.where(x < 0, SELU_A * (np.exp(x) - 1), x)),
    (tf.nn.softplus, "Softplus", lambda x: np.log1p(np.exp(x))),
    (tf.nn.softsign, "Softsign", lambda x: x / (1 + np.abs(x))),
    (tf.nn.leaky_relu, "LeakyRelu", lambda x: np.where(x > 0, x, 0.2 * x)),
]


@pytest.mark.parametrize("fn,op_type,ref", ACTIVATIONS, ids=[a[1] for a in ACTIVATIONS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_match_numpy(fn: Any, op_type: str, ref: Any, dtype: Any) -> None:
    x_val = np.array([[-8.0, -2.5, -0.5, 0.0], [0.3, 2.0, 5.9, 7.5]], dtype=dtype)
    x = tf.placeholder(dtype, shape=[None, 4])
    y = fn(x)
    assert y.op.type == op_type
    assert y.dtype == tf.as_dtype(dtype)
    assert y.shape.as_list() == [None, 4]
    out = run(y, {x: x_val})
    assert out.dtype == dtype
    np.testing.assert_allclose(out, ref(x_val.astype(np.float64)), rtol=1e-6, atol=1e-6)


def test_activation_names_and_attrs() -> None:
    x = tf.constant([1.0, -1.0])
    assert tf.nn.relu(x).op.name == "Relu"
    assert tf.nn.relu(x, name="act").op.name == "act"
    assert tf.nn.relu6(x).op.name == "Relu6"
    leaky = tf.nn.leaky_relu(x, alpha=0.1)
    assert leaky.op.name == "LeakyRelu"
    assert leaky.op.get_attr("alpha") == pytest.approx(0.1)
    np.testing.assert_allclose(run(leaky), [1.0, -0.1], rtol=1e-6)


def test_softplus_is_stable_for_large_inputs() -> None:
    out = run(tf.nn.softplus(tf.constant([-1000.0, 0.0, 1000.0], dtype=tf.float64)))
    np.testing.assert_allclose(out, [0.0, math.log(2.0), 1000.0])


def test_relu_accepts_integers_elu_does_not() -> None:
    out = run(tf.nn.relu(tf.constant([-3, 0, 4])))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [0, 0, 4])
    with pytest.raises(TypeError, match="features"):
        tf.nn.elu(tf.constant([1, 2]))


def test_leaky_relu_casts_integers_to_float() -> None:
    y = tf.nn.leaky_relu(tf.constant([-10, 10]), alpha=0.5)
    assert y.dtype == tf.float32
    np.testing.assert_allclose(run(y), [-5.0, 10.0])


# ---- softmax ---------------------------------------------------------------------------
def test_softmax_and_log_softmax_match_numpy() -> None:
    x_val = RNG.normal(size=(3, 5)).astype(np.float32) * 3
    x = tf.placeholder(tf.float32, [3, 5])
    sm, lsm = tf.nn.softmax(x), tf.nn.log_softmax(x)
    assert (sm.op.type, sm.op.name, lsm.op.type) == ("Softmax", "Softmax", "LogSoftmax")
    assert sm.shape.as_list() == [3, 5] and sm.dtype == tf.float32
    s, ls = run([sm, lsm], {x: x_val})
    assert s.dtype == np.float32
    np.testing.assert_allclose(s, np_softmax(x_val), rtol=1e-5)
    np.testing.assert_allclose(
        ls, np.log(np_softmax(x_val.astype(np.float64))), rtol=1e-5, atol=1e-6
    )


def test_softmax_is_stable_for_large_logits() -> None:
    s, ls = run(
        [
            tf.nn.softmax(tf.constant([[1000.0, 0.0]])),
            tf.nn.log_softmax(tf.constant([[1000.0, 0.0]])),
        ]
    )
    np.testing.assert_allclose(s, [[1.0, 0.0]])
    np.testing.assert_allclose(ls, [[0.0, -1000.0]])


def test_softmax_over_a_rank3_last_axis_and_dim_alias() -> None:
    x_val = RNG.normal(size=(2, 3, 4))
    out = run(tf.nn.softmax(tf.constant(x_val), dim=-1))
    np.testing.assert_allclose(out, np_softmax(x_val), rtol=1e-12)
    out = run(tf.nn.softmax(tf.constant(x_val), axis=2))
    np.testing.assert_allclose(out, np_softmax(x_val), rtol=1e-12)


def test_softmax_over_a_leading_axis() -> None:
    x_val = RNG.normal(size=(3, 4))
    y = tf.nn.softmax(tf.constant(x_val), axis=0)
    assert y.shape.as_list() == [3, 4]
    np.testing.assert_allclose(run(y), np_softmax(x_val, axis=0), rtol=1e-12)
    np.testing.assert_allclose(
        run(tf.nn.log_softmax(tf.constant(x_val), axis=0)),
        np.log(np_softmax(x_val, axis=0)),
        rtol=1e-12,
    )


def test_softmax_rejects_scalars_and_bad_axes() -> None:
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.softmax(tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension"):
        tf.nn.softmax(tf.constant([[1.0, 2.0]]), axis=3)
    with pytest.raises(TypeError):
        tf.nn.softmax(tf.constant([1, 2]))


# ---- cross entropies -------------------------------------------------------------------
def test_softmax_cross_entropy_v2_values_names_and_shapes() -> None:
    logits_val = RNG.normal(size=(4, 3)).astype(np.float32)
    labels_val = np_softmax(RNG.normal(size=(4, 3))).astype(np.float32)
    logits = tf.placeholder(tf.float32, [None, 3])
    labels = tf.placeholder(tf.float32, [None, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    # As TF 1.15 builds it: the op over [-1, classes] matrices, its cost reshaped back.
    assert loss.op.type == "Reshape"
    assert loss.op.name == "softmax_cross_entropy_with_logits/Reshape_2"
    xent = loss.op.inputs[0].op
    assert (xent.type, xent.name) == (
        "SoftmaxCrossEntropyWithLogits",
        "softmax_cross_entropy_with_logits",
    )
    assert loss.shape.as_list() == [None] and loss.dtype == tf.float32
    out = run(loss, {logits: logits_val, labels: labels_val})
    want = -np.sum(labels_val * np.log(np_softmax(logits_val.astype(np.float64))), axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_softmax_cross_entropy_v1_stops_gradient_to_labels() -> None:
    logits = tf.constant([[1.0, 2.0, 0.5]])
    labels = tf.constant([[0.2, 0.3, 0.5]])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.op.inputs[0].op.name == "softmax_cross_entropy_with_logits_sg"
    stop = tf.get_default_graph().get_operation_by_name(
        "softmax_cross_entropy_with_logits_sg/labels_stop_gradient"
    )
    assert stop.type == "StopGradient"
    g_logits, g_labels = tf.gradients(loss, [logits, labels])
    assert g_labels is None
    p = np_softmax(np.array([[1.0, 2.0, 0.5]]))
    np.testing.assert_allclose(run(g_logits), p - [[0.2, 0.3, 0.5]], rtol=1e-5)
    loss2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    assert tf.gradients(loss2, labels)[0] is not None


def test_softmax_cross_entropy_over_rank3_and_other_axis() -> None:
    logits_val = RNG.normal(size=(2, 3, 4))
    labels_val = np_softmax(RNG.normal(size=(2, 3, 4)))
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.constant(labels_val), logits=tf.constant(logits_val)
    )
    assert loss.shape.as_list() == [2, 3]
    want = -np.sum(labels_val * np.log(np_softmax(logits_val)), axis=-1)
    np.testing.assert_allclose(run(loss), want, rtol=1e-10)
    loss0 = tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.constant(labels_val[:, :, 0]), logits=tf.constant(logits_val[:, :, 0]), axis=0
    )
    assert loss0.shape.as_list() == [3]
    want0 = -np.sum(labels_val[:, :, 0] * np.log(np_softmax(logits_val[:, :, 0], axis=0)), axis=0)
    np.testing.assert_allclose(run(loss0), want0, rtol=1e-10)


def test_softmax_cross_entropy_rejects_bad_arguments() -> None:
    logits = tf.constant([[1.0, 2.0]])
    # TF 1.15's v2 (softmax_cross_entropy_with_logits_v2_helper) has no _sentinel: labels and
    # logits are required, by position or by name.
    assert tf.nn.softmax_cross_entropy_with_logits_v2(logits, logits).shape.as_list() == [1]
    with pytest.raises(TypeError, match="labels"):
        tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.softmax_cross_entropy_with_logits(logits, logits)
    # TF 1.15's message: the op's shape function refuses (the labels are not compared first).
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=tf.constant([[1.0, 0.0, 0.0]]), logits=logits
        )
    with pytest.raises(ValueError, match="scalars"):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.constant(1.0), logits=tf.constant(1.0))


def test_softmax_cross_entropy_shape_mismatch_at_run_time() -> None:
    logits = tf.placeholder(tf.float32, [None, None])
    labels = tf.placeholder(tf.float32, [None, None])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be broadcastable"):
        run(loss, {logits: np.zeros((2, 3)), labels: np.zeros((2, 4))})


def test_sparse_softmax_cross_entropy_values_and_shapes() -> None:
    logits_val = RNG.normal(size=(5, 4)).astype(np.float32)
    labels_val = np.array([0, 3, 1, 2, 3], dtype=np.int64)
    logits = tf.placeholder(tf.float32, [None, 4])
    labels = tf.placeholder(tf.int64, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.op.type == "SparseSoftmaxCrossEntropyWithLogits"
    assert loss.op.name == "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits"
    assert loss.shape.as_list() == [None] and loss.dtype == tf.float32
    out = run(loss, {logits: logits_val, labels: labels_val})
    logp = np.log(np_softmax(logits_val.astype(np.float64)))
    np.testing.assert_allclose(out, -logp[np.arange(5), labels_val], rtol=1e-5)


def test_sparse_softmax_cross_entropy_rank3() -> None:
    logits_val = RNG.normal(size=(2, 3, 4))
    labels_val = np.array([[0, 1, 3], [2, 2, 0]], dtype=np.int32)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant(labels_val), logits=tf.constant(logits_val)
    )
    assert loss.shape.as_list() == [2, 3]
    logp = np.log(np_softmax(logits_val))
    want = -np.take_along_axis(logp, labels_val[..., None], axis=-1)[..., 0]
    np.testing.assert_allclose(run(loss), want, rtol=1e-10)


def test_sparse_softmax_cross_entropy_label_out_of_range() -> None:
    logits = tf.constant(np.zeros((2, 3), np.float32))
    labels = tf.placeholder(tf.int32, [2])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 3"):
        run(loss, {labels: [0, 3]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        run(loss, {labels: [-1, 0]})


def test_sparse_softmax_cross_entropy_of_an_empty_batch_is_empty() -> None:
    # No label to check: the range check must not reduce an empty batch.
    logits = tf.placeholder(tf.float32, [None, 3])
    labels = tf.placeholder(tf.int32, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    out = run(loss, {logits: np.zeros((0, 3), np.float32), labels: np.zeros(0, np.int32)})
    assert out.shape == (0,) and out.dtype == np.float32


def test_sparse_softmax_cross_entropy_rejects_bad_static_input() -> None:
    logits = tf.constant(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="Rank mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant([[0], [1]]), logits=logits
        )
    with pytest.raises(ValueError, match="Shape mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 1, 2]), logits=logits)
    with pytest.raises(TypeError, match="labels"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant([0.0, 1.0]), logits=logits
        )


def test_sigmoid_cross_entropy_matches_formula_and_is_stable() -> None:
    x_val = np.array([[-3.0, -0.5, 0.0, 0.7, 4.0]])
    z_val = np.array([[0.0, 1.0, 0.5, 1.0, 0.2]])
    loss = tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.constant(z_val), logits=tf.constant(x_val)
    )
    assert loss.op.name == "logistic_loss"
    assert loss.shape.as_list() == [1, 5] and loss.dtype == tf.float64
    sig = 1 / (1 + np.exp(-x_val))
    want = -(z_val * np.log(sig) + (1 - z_val) * np.log(1 - sig))
    np.testing.assert_allclose(run(loss), want, rtol=1e-10)
    big = run(
        tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.constant([0.0, 1.0, 0.0]), logits=tf.constant([1000.0, -1000.0, -1000.0])
        )
    )
    np.testing.assert_allclose(big, [1000.0, 1000.0, 0.0])
    with pytest.raises(ValueError, match="same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.constant([1.0]), logits=tf.constant([1.0, 2.0])
        )


def test_weighted_cross_entropy_matches_formula() -> None:
    x_val = np.array([-2.0, 0.0, 1.5])
    z_val = np.array([1.0, 0.0, 0.3])
    q = 3.0
    loss = tf.nn.weighted_cross_entropy_with_logits(
        targets=tf.constant(z_val), logits=tf.constant(x_val), pos_weight=q
    )
    sig = 1 / (1 + np.exp(-x_val))
    want = -(q * z_val * np.log(sig) + (1 - z_val) * np.log(1 - sig))
    np.testing.assert_allclose(run(loss), want, rtol=1e-10)


def test_l2_loss() -> None:
    x_val = RNG.normal(size=(3, 4)).astype(np.float32)
    loss = tf.nn.l2_loss(tf.constant(x_val))
    assert loss.op.type == "L2Loss" and loss.shape.as_list() == [] and loss.dtype == tf.float32
    out = run(loss)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.sum(x_val.astype(np.float64) ** 2) / 2, rtol=1e-5)


# ---- bias_add --------------------------------------------------------------------------
def test_bias_add_nhwc_and_nchw() -> None:
    x_val = RNG.normal(size=(2, 3, 4, 5)).astype(np.float32)
    b5 = np.arange(5, dtype=np.float32)
    b3 = np.arange(3, dtype=np.float32)
    y = tf.nn.bias_add(tf.constant(x_val), tf.constant(b5))
    assert (y.op.type, y.op.name) == ("BiasAdd", "BiasAdd")
    assert y.op.get_attr("data_format") == b"NHWC" and y.shape.as_list() == [2, 3, 4, 5]
    y2 = tf.nn.bias_add(tf.constant(x_val), tf.constant(b3), data_format="NCHW")
    out, out2 = run([y, y2])
    np.testing.assert_allclose(out, x_val + b5)
    np.testing.assert_allclose(out2, x_val + b3[None, :, None, None])


def test_bias_add_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.nn.bias_add(tf.constant(np.zeros((2, 3))), tf.constant(np.zeros(4)))
    with pytest.raises(ValueError, match="rank 1"):
        tf.nn.bias_add(tf.constant(np.zeros((2, 3))), tf.constant(np.zeros((1, 3))))
    with pytest.raises(ValueError, match="at least rank 2"):
        tf.nn.bias_add(tf.constant(np.zeros(3)), tf.constant(np.zeros(3)))
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.nn.bias_add(x, tf.constant(np.zeros(3, np.float32)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="as many biases"):
        run(y, {x: np.zeros((2, 4), np.float32)})


def test_xw_plus_b_and_relu_layer() -> None:
    x_val, w_val, b_val = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2)), RNG.normal(size=2)
    y = tf.nn.xw_plus_b(tf.constant(x_val), tf.constant(w_val), tf.constant(b_val))
    r = tf.nn.relu_layer(tf.constant(x_val), tf.constant(w_val), tf.constant(b_val))
    assert y.op.name == "xw_plus_b" and r.op.name == "relu_layer"
    out, out_r = run([y, r])
    np.testing.assert_allclose(out, x_val @ w_val + b_val)
    np.testing.assert_allclose(out_r, np.maximum(x_val @ w_val + b_val, 0))


# ---- dropout ---------------------------------------------------------------------------
def test_dropout_keeps_and_scales() -> None:
    x_val = np.ones((200, 50), dtype=np.float32)
    keep_prob = tf.placeholder(tf.float32, [])
    y = tf.nn.dropout(tf.constant(x_val), keep_prob, seed=3)
    assert y.shape.as_list() == [200, 50] and y.dtype == tf.float32
    with tf.Session() as sess:
        out = sess.run(y, {keep_prob: 0.25})
        full = sess.run(y, {keep_prob: 1.0})
    assert set(np.unique(out).tolist()) <= {0.0, 4.0}
    assert 0.22 < np.mean(out != 0) < 0.28
    np.testing.assert_allclose(full, x_val)


def test_dropout_rate_noise_shape_and_seeds() -> None:
    x_val = np.ones((6, 400), dtype=np.float64)
    tf.set_random_seed(7)
    y = tf.nn.dropout(tf.constant(x_val), rate=0.5, noise_shape=[1, 400])
    out = run(y)
    assert set(np.unique(out).tolist()) <= {0.0, 2.0}
    assert np.all(out == out[0])  # one mask row shared by every row
    assert 0.4 < np.mean(out[0] != 0) < 0.6
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        y2 = tf.nn.dropout(tf.constant(x_val), rate=0.5, noise_shape=[1, 400])
        with tf.Session(graph=graph) as sess:
            np.testing.assert_array_equal(sess.run(y2), out)


def test_dropout_shortcuts_and_errors() -> None:
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, keep_prob=1.0) is x
    assert tf.nn.dropout(x, rate=0.0) is x
    with pytest.raises(ValueError, match="range"):
        tf.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="range"):
        tf.nn.dropout(x, keep_prob=0.0)
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.dropout(tf.constant([1, 2]), keep_prob=0.5)
    with pytest.raises(ValueError, match="provide a rate"):
        tf.nn.dropout(x)
    with pytest.raises(ValueError, match="keep_prob"):
        tf.nn.dropout(x, keep_prob="half")


# ---- convolution -----------------------------------------------------------------------
CONV_CASES = [
    ((2, 7, 7, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1)),
    ((2, 7, 7, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1)),
    ((1, 8, 6, 2), (2, 3, 2, 5), (2, 1), "SAME", (1, 1)),
    ((2, 7, 8, 3), (3, 2, 3, 2), (2, 3), "VALID", (1, 1)),
    ((1, 5, 5, 1), (1, 1, 1, 3), (1, 1), "VALID", (1, 1)),
    ((1, 9, 9, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2)),
    ((1, 9, 8, 2), (3, 2, 2, 2), (1, 1), "VALID", (2, 3)),
]


@pytest.mark.parametrize("x_shape,w_shape,strides,padding,dilations", CONV_CASES)
def test_conv2d_matches_loops(
    x_shape: Any, w_shape: Any, strides: Any, padding: str, dilations: Any
) -> None:
    x_val = RNG.normal(size=x_shape).astype(np.float32)
    w_val = RNG.normal(size=w_shape).astype(np.float32)
    x = tf.placeholder(tf.float32, x_shape)
    y = tf.nn.conv2d(
        x,
        tf.constant(w_val),
        strides=[1, *strides, 1],
        padding=padding,
        dilations=[1, *dilations, 1],
    )
    want = conv2d_ref(
        x_val.astype(np.float64), w_val.astype(np.float64), strides, padding, dilations
    )
    assert (y.op.type, y.op.name) == ("Conv2D", "Conv2D")
    assert y.shape.as_list() == list(want.shape) and y.dtype == tf.float32
    out = run(y, {x: x_val})
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_conv2d_static_shapes() -> None:
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    w = tf.constant(np.zeros((5, 5, 1, 32), np.float32))
    assert tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape.as_list() == [None, 14, 14, 32]
    assert tf.nn.conv2d(x, w, [1, 3, 3, 1], "SAME").shape.as_list() == [None, 10, 10, 32]
    assert tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID").shape.as_list() == [None, 24, 24, 32]
    assert tf.nn.conv2d(x, w, [1, 2, 2, 1], "VALID").shape.as_list() == [None, 12, 12, 32]
    assert tf.nn.conv2d(x, w, 2, "SAME").op.get_attr("strides") == [1, 2, 2, 1]
    unknown = tf.placeholder(tf.float32)
    assert tf.nn.conv2d(unknown, w, 1, "SAME").shape.as_list() == [None, None, None, 32]


def test_conv2d_float64_and_filters_alias() -> None:
    x_val, w_val = RNG.normal(size=(1, 4, 4, 2)), RNG.normal(size=(2, 2, 2, 1))
    y = tf.nn.conv2d(tf.constant(x_val), filters=tf.constant(w_val), strides=1, padding="VALID")
    assert y.dtype == tf.float64
    np.testing.assert_allclose(run(y), conv2d_ref(x_val, w_val, (1, 1), "VALID"), rtol=1e-12)


def test_conv2d_rejects_bad_input() -> None:
    x = tf.placeholder(tf.float32, [1, 5, 5, 3])
    w = tf.constant(np.zeros((3, 3, 3, 2), np.float32))
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [5, 5, 3]), w, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.conv2d(x, tf.constant(np.zeros((3, 3, 3), np.float32)), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "same")
    with pytest.raises(ValueError, match="not a multiple of input depth"):
        tf.nn.conv2d(x, tf.constant(np.zeros((3, 3, 4, 2), np.float32)), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="strides should be of length"):
        tf.nn.conv2d(x, w, [1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="batch and depth"):
        tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Negative dimension"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [1, 2, 2, 3]), w, [1, 1, 1, 1], "VALID")
    # NCHW reads the channels at axis 1: 5 here, not the filter's 3.
    with pytest.raises(ValueError, match="not a multiple of input depth"):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", data_format="NCHW")


def test_conv2d_input_smaller_than_filter_at_run_time() -> None:
    x = tf.placeholder(tf.float32, [1, None, None, 1])
    y = tf.nn.conv2d(x, tf.constant(np.ones((3, 3, 1, 1), np.float32)), 1, "VALID")
    # As TF: one row short of the window is an empty output, two rows short an error.
    assert run(y, {x: np.ones((1, 2, 2, 1), np.float32)}).shape == (1, 0, 0, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative"):
        run(y, {x: np.ones((1, 1, 1, 1), np.float32)})


@pytest.mark.parametrize("strides,padding", [((1, 1), "SAME"), ((2, 2), "SAME"), ((2, 1), "VALID")])
def test_conv2d_backprops_match_loops(strides: Any, padding: str) -> None:
    x_val = RNG.normal(size=(2, 6, 5, 3))
    w_val = RNG.normal(size=(3, 2, 3, 4))
    fwd = conv2d_ref(x_val, w_val, strides, padding)
    dy_val = RNG.normal(size=fwd.shape)
    s = [1, *strides, 1]
    dx = tf.nn.conv2d_backprop_input(
        [2, 6, 5, 3], tf.constant(w_val), tf.constant(dy_val), s, padding
    )
    dw = tf.nn.conv2d_backprop_filter(
        tf.constant(x_val), [3, 2, 3, 4], tf.constant(dy_val), s, padding
    )
    assert dx.shape.as_list() == [2, 6, 5, 3] and dw.shape.as_list() == [3, 2, 3, 4]
    dx_val, dw_val = run([dx, dw])
    np.testing.assert_allclose(
        dx_val, conv2d_backprop_input_ref(dy_val, w_val, x_val.shape, strides, padding), rtol=1e-10
    )
    np.testing.assert_allclose(
        dw_val, conv2d_backprop_filter_ref(x_val, dy_val, w_val.shape, strides, padding), rtol=1e-10
    )


def test_conv2d_transpose_is_the_adjoint_of_conv2d() -> None:
    w_val = RNG.normal(size=(3, 3, 2, 4))  # [h, w, out_channels, in_channels]
    v_val = RNG.normal(size=(1, 3, 3, 4))
    y = tf.nn.conv2d_transpose(
        tf.constant(v_val), tf.constant(w_val), [1, 6, 6, 2], [1, 2, 2, 1], padding="SAME"
    )
    assert y.shape.as_list() == [1, 6, 6, 2] and y.op.name == "conv2d_transpose"
    want = conv2d_backprop_input_ref(v_val, w_val, (1, 6, 6, 2), (2, 2), "SAME")
    np.testing.assert_allclose(run(y), want, rtol=1e-10)


# ---- pooling ---------------------------------------------------------------------------
POOL_CASES = [
    ((2, 6, 6, 3), (2, 2), (2, 2), "VALID"),
    ((2, 7, 7, 3), (2, 2), (2, 2), "SAME"),
    ((1, 5, 6, 2), (3, 3), (2, 2), "SAME"),
    ((1, 5, 6, 2), (3, 2), (1, 2), "VALID"),
    ((2, 4, 4, 1), (3, 3), (1, 1), "SAME"),
]


@pytest.mark.parametrize("x_shape,k,s,padding", POOL_CASES)
def test_pools_match_loops(x_shape: Any, k: Any, s: Any, padding: str) -> None:
    x_val = RNG.normal(size=x_shape).astype(np.float32)
    x = tf.placeholder(tf.float32, x_shape)
    mp = tf.nn.max_pool(x, ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding)
    ap = tf.nn.avg_pool(x, ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding)
    want_max = pool_ref(x_val, k, s, padding, np.max)
    want_avg = pool_ref(x_val.astype(np.float64), k, s, padding, np.mean)
    assert (mp.op.type, mp.op.name, ap.op.type, ap.op.name) == (
        "MaxPool",
        "MaxPool",
        "AvgPool",
        "AvgPool",
    )
    assert mp.shape.as_list() == list(want_max.shape) == ap.shape.as_list()
    out_max, out_avg = run([mp, ap], {x: x_val})
    assert out_max.dtype == np.float32 and out_avg.dtype == np.float32
    np.testing.assert_array_equal(out_max, want_max.astype(np.float32))
    np.testing.assert_allclose(out_avg, want_avg, rtol=1e-5, atol=1e-6)


def test_avg_pool_same_divides_by_valid_elements() -> None:
    x_val = np.arange(1, 10, dtype=np.float64).reshape(1, 3, 3, 1)
    out = run(tf.nn.avg_pool(tf.constant(x_val), 2, 2, "SAME"))
    # Windows: rows/cols {0,1} and {2}: the padded cells are not counted.
    np.testing.assert_allclose(out[0, :, :, 0], [[3.0, 4.5], [7.5, 9.0]])
    negatives = run(tf.nn.max_pool(tf.constant(-x_val), 2, 2, "SAME"))
    np.testing.assert_allclose(negatives[0, :, :, 0], [[-1.0, -3.0], [-7.0, -9.0]])


def test_pool_static_shapes_and_errors() -> None:
    x = tf.placeholder(tf.float32, [None, 28, 28, 8])
    assert tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME").shape.as_list() == [
        None,
        14,
        14,
        8,
    ]
    assert tf.nn.max_pool(x, [1, 3, 3, 1], [1, 3, 3, 1], "SAME").shape.as_list() == [
        None,
        10,
        10,
        8,
    ]
    assert tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "VALID").shape.as_list() == [
        None,
        13,
        13,
        8,
    ]
    with pytest.raises(ValueError, match="padding"):
        tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "FULL")
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.avg_pool(tf.placeholder(tf.float32, [28, 28, 8]), 2, 2, "SAME")
    # A depth window builds: TF's shape function windows MaxPool's depth, its kernel decides
    # (test_pooling_windows.py).
    assert tf.nn.max_pool(x, [1, 2, 2, 2], [1, 2, 2, 1], "SAME").shape.as_list() == [
        None,
        14,
        14,
        8,
    ]
    with pytest.raises(ValueError, match="ksize should be of length"):
        tf.nn.max_pool(x, [1, 2, 2], [1, 2, 2, 1], "SAME")


# ---- metrics and normalisation ---------------------------------------------------------
def test_in_top_k() -> None:
    preds = np.array(
        [[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.9, 0.05, 0.05], [0.2, 0.2, 0.6]], dtype=np.float32
    )
    targets = np.array([2, 0, 1, 5], dtype=np.int32)
    top1 = tf.nn.in_top_k(tf.constant(preds), tf.constant(targets), 1)
    top2 = tf.nn.in_top_k(tf.constant(preds), tf.constant(targets), 2)
    assert top1.dtype == tf.bool and top1.shape.as_list() == [4]
    out1, out2 = run([top1, top2])
    np.testing.assert_array_equal(out1, [False, False, False, False])
    # A tie with the k-th largest counts as inside the top k; out-of-range targets never do.
    np.testing.assert_array_equal(out2, [True, True, True, False])


def test_l2_normalize() -> None:
    x_val = RNG.normal(size=(3, 4))
    y = tf.nn.l2_normalize(tf.constant(x_val), axis=1)
    assert y.shape.as_list() == [3, 4] and y.op.name == "l2_normalize"
    np.testing.assert_allclose(
        run(y), x_val / np.linalg.norm(x_val, axis=1, keepdims=True), rtol=1e-12
    )
    z = run(tf.nn.l2_normalize(tf.constant(np.zeros((2, 2)))))
    np.testing.assert_array_equal(z, np.zeros((2, 2)))


def test_moments() -> None:
    x_val = RNG.normal(size=(4, 3, 2))
    mean, var = tf.nn.moments(tf.constant(x_val), axes=[0, 1])
    assert mean.shape.as_list() == [2] and var.shape.as_list() == [2]
    m, v = run([mean, var])
    np.testing.assert_allclose(m, x_val.mean(axis=(0, 1)), rtol=1e-12)
    np.testing.assert_allclose(v, x_val.var(axis=(0, 1)), rtol=1e-12)
    mean_k, _ = tf.nn.moments(tf.constant(x_val), axes=[0], keep_dims=True)
    assert mean_k.shape.as_list() == [1, 3, 2]


def test_sigmoid_and_tanh_are_the_math_ops() -> None:
    assert tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh
    x_val = np.array([-2.0, 0.0, 3.0])
    s, t = run([tf.nn.sigmoid(tf.constant(x_val)), tf.nn.tanh(tf.constant(x_val))])
    np.testing.assert_allclose(s, 1 / (1 + np.exp(-x_val)), rtol=1e-12)
    np.testing.assert_allclose(t, np.tanh(x_val), rtol=1e-12)
