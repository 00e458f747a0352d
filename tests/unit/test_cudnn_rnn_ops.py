"""The CudnnRNN family on tfcluster's xp kernels computes what TF 1.15 computes for the same
model through its CPU cells (tests/tf_reference/cudnn_rnn_cases.py, record_cudnn_rnn.py):
outputs, final states and gradients (CudnnRNNBackprop*) for LSTM, GRU, relu/tanh RNNs, one
and two layers, uni- and bidirectional, with V3's sequence_lengths and batch-major input; the
parameter buffer converts to and from the canonical weights; bad input gets TF's classes."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.cudnn_rnn_cases import CASES, canonical, loss_weights
from tfcluster.ops import cudnn_rnn_ops as cudnn


def _model(name: str, version: int, time_major: bool = True) -> dict[str, object]:
    mode, direction, layers, t, b, n_in, units, lengths = CASES[name]
    dirs = 2 if direction == "bidirectional" else 1
    weights, biases, x_np, h0_np, c0_np = canonical(name)
    with tf.Graph().as_default():
        params = cudnn.cudnn_rnn_canonical_to_params(
            layers, units, n_in, weights, biases, rnn_mode=mode, direction=direction
        )
        x = tf.placeholder(tf.float32, [t, b, n_in])
        h0 = tf.placeholder(tf.float32, h0_np.shape)
        c0 = tf.placeholder(tf.float32, c0_np.shape)
        p = tf.placeholder(tf.float32, [None])
        kw = {"rnn_mode": mode, "direction": direction}
        if version == 3 or lengths is not None:
            seq = lengths if lengths is not None else [t] * b
            feed_x = x if time_major else tf.transpose(x, [1, 0, 2])
            out, h, c, _, _ = cudnn.cudnn_rnnv3(feed_x, h0, c0, p, seq, time_major=time_major, **kw)
            if not time_major:
                out = tf.transpose(out, [1, 0, 2])
        elif version == 2:
            out, h, c, _, _ = cudnn.cudnn_rnnv2(x, h0, c0, p, **kw)
        else:
            out, h, c, _ = cudnn.cudnn_rnn(x, h0, c0, p, **kw)
        loss = tf.reduce_sum(out * loss_weights([t, b, units * dirs], 1))
        loss += tf.reduce_sum(h * loss_weights([layers * dirs, b, units], 2))
        if mode == "lstm":
            loss += tf.reduce_sum(c * loss_weights([layers * dirs, b, units], 3))
        grads = tf.gradients(loss, [x, h0, c0, p])
        to_canonical = cudnn.cudnn_rnn_params_to_canonical(
            layers, units, n_in, grads[3], len(weights), rnn_mode=mode, direction=direction
        )
        with tf.Session() as sess:
            p_np = sess.run(params)
            feed = {x: x_np, h0: h0_np, c0: c0_np, p: p_np}
            got = sess.run(
                {"out": out, "h": h, "c": c, "grads": grads[:3], "canon": to_canonical}, feed
            )
    got["static_shape"] = out.shape.as_list()
    return got


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("version", [1, 2, 3])
def test_outputs_states_and_gradients_are_tfs(name: str, version: int) -> None:
    if CASES[name][7] is not None and version != 3:
        pytest.skip("sequence_lengths is CudnnRNNV3's")
    want = reference.case("cudnn_rnn", name)
    got = _model(name, version)
    reference.assert_close(got["out"], want["output"], rtol=1e-4, atol=1e-5)
    reference.assert_close(got["h"], want["h"], rtol=1e-4, atol=1e-5)
    if "c" in want:
        reference.assert_close(got["c"], want["c"], rtol=1e-4, atol=1e-5)
        reference.assert_close(got["grads"][2], want["d_input_c"], rtol=1e-4, atol=1e-4)
    reference.assert_close(got["grads"][0], want["d_input"], rtol=1e-4, atol=1e-4)
    reference.assert_close(got["grads"][1], want["d_input_h"], rtol=1e-4, atol=1e-4)
    d_weights, d_biases = got["canon"]
    for g, w in zip(d_weights, want["d_weights"]):
        reference.assert_close(g, w, rtol=1e-4, atol=1e-4)
    for g, w in zip(d_biases, want["d_biases"]):
        reference.assert_close(g, w, rtol=1e-4, atol=1e-4)
    _, direction, _, t, b, _, units, _ = CASES[name]
    assert got["static_shape"] == [t, b, units * (2 if direction == "bidirectional" else 1)]


def test_batch_major_input_of_v3() -> None:
    want = reference.case("cudnn_rnn", "gru_one_layer")
    got = _model("gru_one_layer", 3, time_major=False)
    reference.assert_close(got["out"], want["output"], rtol=1e-4, atol=1e-5)
    reference.assert_close(got["grads"][0], want["d_input"], rtol=1e-4, atol=1e-4)


def test_params_size_and_canonical_round_trip() -> None:
    weights, biases, *_ = canonical("lstm_two_layers_bidirectional")
    with tf.Graph().as_default():
        size = cudnn.cudnn_rnn_params_size(
            2, 4, 3, T=tf.float32, S=tf.int64, rnn_mode="lstm", direction="bidirectional"
        )
        params = cudnn.cudnn_rnn_canonical_to_params_v2(
            2, 4, 3, weights, biases, rnn_mode="lstm", direction="bidirectional"
        )
        back_w, back_b = cudnn.cudnn_rnn_params_to_canonical_v2(
            2, 4, 3, params, len(weights), len(biases), rnn_mode="lstm", direction="bidirectional"
        )
        with tf.Session() as sess:
            n, flat, ws, bs = sess.run([size, params, back_w, back_b])
    total = sum(w.size for w in weights) + sum(b.size for b in biases)
    assert n.dtype == np.int64 and int(n) == total == flat.size
    # The buffer: every matrix flattened in canonical order, then every bias (Keras's layout).
    np.testing.assert_array_equal(flat[: weights[0].size], weights[0].reshape(-1))
    np.testing.assert_array_equal(flat[-4:], biases[-1])
    for a, w in zip(ws, weights):
        np.testing.assert_array_equal(a, w)
    for a, w in zip(bs, biases):
        np.testing.assert_array_equal(a, w)


def test_bad_input_gets_tfs_error_classes() -> None:
    with tf.Graph().as_default():
        x = tf.zeros([3, 2, 4])
        h = tf.zeros([1, 2, 5])
        short = tf.zeros([7])
        out = cudnn.cudnn_rnn(x, h, h, short, rnn_mode="gru")[0]
        flat_x = cudnn.cudnn_rnn(tf.zeros([3, 4]), h, h, short, rnn_mode="gru")[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="params"):
                sess.run(out)
            with pytest.raises(tf.errors.InvalidArgumentError, match="3-D"):
                sess.run(flat_x)
            # The session keeps working.
            assert sess.run(tf.constant(1.0)) == 1.0
