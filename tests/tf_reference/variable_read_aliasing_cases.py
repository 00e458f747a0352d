"""A RefVariable's read in TF 1.15 aliases the variable's buffer, and an Assign of the same
size copies into that buffer: a consumer of the read that runs after an Assign of the same
step sees the assigned value. The Udacity 6_lstm assignment keeps its LSTM state in
variables assigned under control_dependencies before the loss, so the gradient of the first
unrolling's MatMul takes the state just assigned. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_variable_read_aliasing.py and on tfcluster by
tests/unit/test_variable_read_aliasing.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def gradient_reads_state_assigned_in_the_step(tf):
    """y = v @ W with v assigned tanh(y + 1) before the loss: dloss/dW = v_new^T @ 3."""
    tf.reset_default_graph()
    v = tf.Variable(tf.zeros([1, 2]))
    w = tf.Variable(tf.constant([[0.5, -1.0], [2.0, 0.25]]))
    y = tf.matmul(v, w)
    with tf.control_dependencies([v.assign(tf.tanh(y + 1.0))]):
        loss = tf.reduce_sum(y * 3.0)
    grad = tf.gradients(loss, [w])[0]
    out = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            out.append([x.tolist() for x in sess.run([loss, grad])])
    return {"steps": out}


def consumers_after_an_assign_see_it(tf):
    """r = w.value() read before an Assign (y) and after it (z, z2): the later ones see 7."""
    tf.reset_default_graph()
    w = tf.Variable(np.ones([2, 2], np.float32))
    r = w.value()
    y = r * 2.0
    with tf.control_dependencies([y]):
        assign = tf.assign(w, np.full([2, 2], 7, np.float32))
    with tf.control_dependencies([assign]):
        z = r + 0.0
        z2 = y + r
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([y, z, z2])
    return {"y": got[0].tolist(), "z": got[1].tolist(), "z2": got[2].tolist()}


def saved_state_lstm_training(tf):
    """A small 6_lstm-style model: per-gate matrices, saved output and state assigned before
    the loss, clipped SGD; the losses of a few steps."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    rng = np.random.RandomState(5)
    vocab, nodes, batch, unroll = 5, 4, 3, 4
    ix = tf.Variable(tf.truncated_normal([vocab, nodes], -0.1, 0.1))
    im = tf.Variable(tf.truncated_normal([nodes, nodes], -0.1, 0.1))
    ib = tf.Variable(tf.zeros([1, nodes]))
    saved_output = tf.Variable(tf.zeros([batch, nodes]), trainable=False)
    saved_state = tf.Variable(tf.zeros([batch, nodes]), trainable=False)
    w = tf.Variable(tf.truncated_normal([nodes, vocab], -0.1, 0.1))
    b = tf.Variable(tf.zeros([vocab]))

    def cell(i, o, state):
        gate = tf.sigmoid(tf.matmul(i, ix) + tf.matmul(o, im) + ib)
        state = gate * state + gate * tf.tanh(tf.matmul(i, ix))
        return gate * tf.tanh(state), state

    data = [tf.placeholder(tf.float32, [batch, vocab]) for _ in range(unroll + 1)]
    outputs, output, state = [], saved_output, saved_state
    for i in data[:unroll]:
        output, state = cell(i, output, state)
        outputs.append(output)
    with tf.control_dependencies([saved_output.assign(output), saved_state.assign(state)]):
        logits = tf.nn.xw_plus_b(tf.concat(outputs, 0), w, b)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=tf.concat(data[1:], 0), logits=logits)
        )
    opt = tf.train.GradientDescentOptimizer(5.0)
    grads, variables = zip(*opt.compute_gradients(loss))
    grads, _ = tf.clip_by_global_norm(grads, 1.25)
    train = opt.apply_gradients(zip(grads, variables))
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            ids = rng.randint(0, vocab, size=(unroll + 1, batch))
            feed = {d: np.eye(vocab, dtype=np.float32)[k] for d, k in zip(data, ids)}
            losses.append(float(sess.run([train, loss], feed)[1]))
        weights = sess.run(im).tolist()
    return {"losses": losses, "im": weights}


def identities_of_a_variable_alias_it(tf):
    """`old = tf.identity(v)` (or v.read_value(), or an identity of an identity) taken before
    an Assign is no snapshot in TF 1.15: an op after the Assign, and a fetch of `old`, see
    the assigned value; an identity under control_dependencies reads after them; a resource
    variable's identity is a copy."""

    def build(kind):
        tf.reset_default_graph()
        v = tf.Variable(np.arange(3, dtype=np.float32), use_resource=kind == "resource")
        if kind == "chain":
            old = tf.identity(tf.identity(v))
        elif kind == "read_value":
            old = v.read_value()
        else:
            old = tf.identity(v)
        with tf.control_dependencies([old]):
            assign = tf.assign_add(v, [10.0, 10.0, 10.0])
        with tf.control_dependencies([assign]):
            later = old * 1.0
            after = tf.identity(v)
        return old, assign, later, after

    out = {}
    for kind in ("identity", "chain", "read_value", "resource"):
        fetch_sets = {"later": [2], "later_and_old": [2, 0], "old_and_assign": [0, 1]}
        for fetched, picks in fetch_sets.items():
            ops = build(kind)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                got = sess.run([ops[k] for k in picks])
            out[kind + "/" + fetched] = [np.asarray(g).tolist() for g in got]
        ops = build(kind)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out[kind + "/after_and_later"] = [x.tolist() for x in sess.run([ops[3], ops[2]])]
    return out


for _fn in [
    gradient_reads_state_assigned_in_the_step,
    consumers_after_an_assign_see_it,
    saved_state_lstm_training,
    identities_of_a_variable_alias_it,
]:
    CASES[_fn.__name__] = _fn
