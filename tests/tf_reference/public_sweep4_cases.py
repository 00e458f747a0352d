"""Behaviours the TF1 programs of openai/gpt-2, roatienza's Deep-Learning-Experiments,
ematvey's seq2seq tutorials, GraphSAGE and tensorflow-DeepFM showed apart on tfcluster. Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_public_sweep4.py and on
tfcluster by tests/unit/test_public_sweep4_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


def _outcome(fn):
    """What one numpy call on a symbolic tensor gives: the result's kind, or the error."""
    try:
        got = fn()
    except Exception as e:  # the error class is what is recorded
        return {"error": type(e).__name__, "message": str(e)}
    if hasattr(got, "op"):
        return {"tensor": got.dtype.name, "op": got.op.type}
    return {"value": type(got).__name__}


def numpy_functions_of_symbolic_tensors(tf):
    """A symbolic tensor refuses to become a numpy array (Tensor.__array__ raises
    NotImplementedError), so numpy functions of one fail: roatienza's decomposition.py calls
    np.reciprocal on tf.svd's output. numpy scalars and arrays in arithmetic still defer to
    the tensor's operators (__array_priority__)."""
    with tf.Graph().as_default():
        t = tf.constant([1.0, 2.0], name="t")
        calls = {
            "reciprocal": lambda: np.reciprocal(t),
            "exp": lambda: np.exp(t),
            "asarray": lambda: np.asarray(t),
            "array": lambda: np.array(t),
            "float32_scalar_times": lambda: np.float32(2.0) * t,
            "float64_scalar_plus": lambda: np.float64(2.0) + t,
            "array_plus": lambda: np.ones(2, np.float32) + t,
            "array_times": lambda: np.ones(2, np.float32) * t,
            "array_less": lambda: np.ones(2, np.float32) < t,
        }
        return {name: _outcome(fn) for name, fn in calls.items()}


def gradients_of_lookups_inside_a_cond(tf):
    """The gradient of an embedding_lookup of a variable captured by a tf.cond branch, at the
    top level and inside a tf.while_loop (ematvey's seq2seq raw_rnn decoder feeds back the
    lookup of its argmax under a cond): TF 1.15 merges the branch's IndexedSlices with the
    other branch's zeros; its dense value is recorded (tfcluster returns it dense, as its
    loop gradients do), with one Adam step through the loop."""
    with tf.Graph().as_default():
        emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 7.0, name="emb")
        p = tf.placeholder(tf.bool, [], name="p")
        top = tf.cond(p, lambda: tf.zeros([3]), lambda: tf.nn.embedding_lookup(emb, 2))
        top_loss = tf.reduce_sum(top * top)

        def body(i, acc):
            x = tf.cond(p, lambda: tf.ones([3]), lambda: tf.nn.embedding_lookup(emb, i % 4))
            return i + 1, acc + tf.reduce_sum(x * x * tf.cast(i + 1, tf.float32))

        _, loop_loss = tf.while_loop(lambda i, a: i < 5, body, [tf.constant(0), tf.constant(0.0)])
        grads = {
            "top": tf.convert_to_tensor(tf.gradients(top_loss, emb)[0]),
            "loop": tf.convert_to_tensor(tf.gradients(loop_loss, emb)[0]),
        }
        train = tf.train.AdamOptimizer(0.1).minimize(loop_loss)
        out = {}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for flag in (False, True):
                got = sess.run(grads, {p: flag})
                for k, v in got.items():
                    out[f"{k}_{flag}"] = v.tolist()
            sess.run(train, {p: False})
            out["emb_after_adam"] = sess.run(emb).tolist()
        return out


CASES = {
    "gradients_of_lookups_inside_a_cond": gradients_of_lookups_inside_a_cond,
    "numpy_functions_of_symbolic_tensors": numpy_functions_of_symbolic_tensors,
}
