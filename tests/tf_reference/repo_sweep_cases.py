"""Behaviours public TF1 repositories (SeqGAN's generators, golbin's and nlintz's tutorials,
dennybritz's text CNN) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_repo_sweep.py and on tfcluster by
tests/unit/test_repo_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import error_class as _error
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error_class as _error


def _ops(tf):
    return [[op.type, op.name] for op in tf.get_default_graph().get_operations()]


def one_hot_ops_and_later_seeds(tf):
    """tf.one_hot makes TF's ops for every form of on_value / off_value (Python values are
    converted once for their dtype and again as the op's named inputs), so the op seed of a
    later random op (SeqGAN samples after a one_hot) is TF's."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    idx = tf.constant([0, 2, 1])
    on = tf.constant(5.0)
    outs = [
        tf.one_hot(idx, 3, 1.0, 0.0),
        tf.one_hot(idx, 3),
        tf.one_hot(idx, 3, on_value=2),
        tf.one_hot(idx, 3, off_value=-1.0, dtype=tf.float32),
        tf.one_hot(idx, 3, on, 0.0),
        tf.one_hot([1, 0], 4, np.float64(3.0), np.float64(-3.0), axis=0),
        tf.one_hot(idx, 3, dtype=tf.int64),
    ]
    draw = tf.random_uniform([4])
    ops = _ops(tf)
    with tf.Session() as sess:
        values = sess.run([*outs, draw])
    errors = {
        "int_on_float_dtype": _error(lambda: tf.one_hot(idx, 3, 1, 0, dtype=tf.float32)),
        "on_off_dtypes_differ": _error(lambda: tf.one_hot(idx, 3, 1.0, 0)),
        "off_against_dtype": _error(lambda: tf.one_hot(idx, 3, off_value=0, dtype=tf.float32)),
    }
    return {
        "ops": ops,
        "dtypes": [v.dtype.name for v in values],
        "values": [v.tolist() for v in values],
        "errors": errors,
    }


def _lstm_loop(tf, reads_steps, all_inputs):
    """A SeqGAN-like loop: an LSTM-ish state unstacked (one half of a second unstack unused),
    the next input read from a TensorArray or doubled, softmax outputs written to another.
    Returns the loss, the gradients fetched and the draw made after tf.gradients."""
    tf.reset_default_graph()
    tf.set_random_seed(7)
    rng = np.random.RandomState(1)
    emb = tf.Variable(rng.randn(7, 3).astype(np.float32))
    w = tf.Variable(rng.randn(3, 5).astype(np.float32))
    u = tf.Variable(rng.randn(5, 5).astype(np.float32))
    wo = tf.Variable(rng.randn(5, 7).astype(np.float32))
    x = tf.placeholder(tf.int32, [4, 6])
    steps = tf.TensorArray(tf.float32, size=6).unstack(
        tf.transpose(tf.nn.embedding_lookup(emb, x), [1, 0, 2])
    )
    preds = tf.TensorArray(tf.float32, size=6)

    def body(i, x_t, hc, preds):
        h, c = tf.unstack(hc)
        h2 = tf.tanh(tf.matmul(x_t, w) + tf.matmul(h, u))
        c2 = c + h2
        hh, _ = tf.unstack(tf.stack([h2, c2]))
        preds = preds.write(i, tf.nn.softmax(tf.matmul(hh, wo)))
        next_x = steps.read(i) if reads_steps else x_t * 0.5
        return i + 1, next_x, tf.stack([h2, c2]), preds

    h0 = tf.stack([tf.zeros([4, 5]), tf.zeros([4, 5])])
    start = tf.nn.embedding_lookup(emb, tf.zeros([4], tf.int32))
    _, _, _, preds = tf.while_loop(lambda i, *_: i < 6, body, (tf.constant(0), start, h0, preds))
    p = tf.reshape(tf.transpose(preds.stack(), [1, 0, 2]), [-1, 7])
    loss = -tf.reduce_sum(tf.one_hot(tf.reshape(x, [-1]), 7, 1.0, 0.0) * tf.log(p))
    xs = [emb, w, u, wo] if all_inputs else [w, u, wo]
    grads = tf.gradients(loss, xs)[-3:]  # emb's is IndexedSlices: not fetched
    draw = tf.random_uniform([3])
    feed = {x: rng.randint(0, 7, (4, 6))}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([loss, *grads, draw], feed)
    return {"values": [np.asarray(v).tolist() for v in values]}


def loop_gradient_of_an_unused_unstack_output(tf):
    """SeqGAN's LSTM unit unstacks its state in a tf.while_loop body and uses one half: TF1's
    gradient loop stands a Const of zeros for the other half's gradient (its shape is known),
    keeping no forward value for it, so a later random op's seed is TF's."""
    return _lstm_loop(tf, reads_steps=True, all_inputs=True)


def loop_gradient_of_loop_variables_no_xs_reach(tf):
    """SeqGAN differentiates its generator's variables but not the embedding its loop's input
    variable starts from: TF1 builds no gradient loop variable for a loop variable the xs do
    not reach (only the Enter of its exit's zeros), so a later random op's seed is TF's."""
    return {
        "reads_steps": _lstm_loop(tf, reads_steps=True, all_inputs=False),
        "doubles": _lstm_loop(tf, reads_steps=False, all_inputs=False),
    }


CASES = {
    f.__name__: f
    for f in (
        one_hot_ops_and_later_seeds,
        loop_gradient_of_an_unused_unstack_output,
        loop_gradient_of_loop_variables_no_xs_reach,
    )
}
