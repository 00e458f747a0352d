"""Programs with tf.cond / tf.while_loop / dynamic_rnn whose MetaGraphs go between TF 1.15
and tfcluster (record_control_flow_interop.py records TF's side; tests/unit/
test_control_flow_interop.py runs tfcluster's). Each `build(tf)` makes the graph with fixed
initial values (no random initializers: the two frameworks' draws differ) and returns the
name of its scalar loss; FEED is fed to every run. Python 3.7 code: TF 1.15 runs it.
"""

import numpy as np

FEED = {"x:0": [0.3, -0.2, 0.5]}
STEPS = 3
LEARNING_RATE = 0.05


def _values(shape, seed):
    return np.random.RandomState(seed).uniform(-0.5, 0.5, shape).astype(np.float32)


def _input(tf):
    return tf.placeholder(tf.float32, [3], name="x")


def while_loop(tf):
    x = _input(tf)
    w = tf.Variable(_values([3], 1), name="w")
    _, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * w + x), [0, x])
    return tf.reduce_sum(s * s, name="loss").name


def nested_while_loop(tf):
    x = _input(tf)
    w = tf.Variable(_values([3], 2), name="w")

    def outer(i, s):
        _, t = tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, tf.tanh(t * w)), [0, s])
        return i + 1, t + x

    _, s = tf.while_loop(lambda i, s: i < 3, outer, [0, x])
    return tf.reduce_sum(s * s, name="loss").name


def cond_in_while_loop(tf):
    x = _input(tf)
    w = tf.Variable(_values([3], 3), name="w")

    def body(i, s):
        s = tf.cond(i < 2, lambda: s * w, lambda: tf.sin(s) + w)
        return i + 1, s

    _, s = tf.while_loop(lambda i, s: i < 4, body, [0, x])
    return tf.reduce_sum(s * s, name="loss").name


def cond_of_variables(tf):
    x = _input(tf)
    w = tf.Variable(_values([3], 4), name="w")
    v = tf.Variable(_values([3], 5), name="v")
    y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * w + v, lambda: tf.exp(w) - v)
    return tf.reduce_sum(y * y, name="loss").name


def while_loop_with_limit_and_tensor_array(tf):
    x = _input(tf)
    w = tf.Variable(_values([3], 6), name="w")
    ta = tf.TensorArray(tf.float32, size=4)

    def body(i, s, ta):
        s = tf.tanh(s * w + x)
        return [i + 1, s, ta.write(i, s)]

    _, _, ta = tf.while_loop(lambda i, s, ta: i < 10, body, [0, x, ta], maximum_iterations=4)
    return tf.reduce_sum(ta.stack() * 2.0, name="loss").name


def dynamic_rnn_lstm(tf):
    x = _input(tf)
    inputs = tf.reshape(tf.tile(x, [8]), [2, 4, 3]) * tf.constant(_values([2, 4, 3], 7))
    cell = tf.nn.rnn_cell.LSTMCell(5, initializer=tf.constant_initializer(_values([8, 20], 8)))
    out, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=[4, 2], dtype=tf.float32)
    dense = tf.Variable(_values([5, 1], 9), name="dense")
    y = tf.tensordot(out, dense, 1)
    return tf.add(tf.reduce_sum(y * y), tf.reduce_sum(state.h), name="loss").name


def resource_variable_in_while_loop(tf):
    x = _input(tf)
    w = tf.get_variable("w", initializer=_values([3], 10), use_resource=True)
    _, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, tf.tanh(s * w + x)), [0, x])
    return tf.reduce_sum(s * s, name="loss").name


def scan(tf):
    x = _input(tf)
    w = tf.Variable(_values([3], 11), name="w")
    y = tf.scan(lambda a, e: a * w + e, tf.stack([x, x * 2.0, x]))
    return tf.reduce_sum(y * y, name="loss").name


CASES = {
    f.__name__: f
    for f in (
        while_loop,
        nested_while_loop,
        cond_in_while_loop,
        cond_of_variables,
        while_loop_with_limit_and_tensor_array,
        dynamic_rnn_lstm,
        resource_variable_in_while_loop,
        scan,
    )
}


def gradients_and_training(tf, graph, loss_name, sess):
    """The loss, its gradients w.r.t. every trainable variable (sorted by name), then the
    loss after each of STEPS steps of gradient descent, all in the imported graph."""
    loss = graph.get_tensor_by_name(loss_name)
    variables = sorted(tf.trainable_variables(), key=lambda v: v.name)
    grads = tf.gradients(loss, variables)
    train = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss, var_list=variables)
    sess.run(tf.global_variables_initializer())
    out = {
        "loss": float(sess.run(loss, FEED)),
        "variables": [v.name for v in variables],
        "grads": [sess.run(g, FEED).tolist() for g in grads],
        "losses": [],
    }
    for _ in range(STEPS):
        sess.run(train, FEED)
        out["losses"].append(float(sess.run(loss, FEED)))
    return out


SAVED_MODEL_CASES = ("while_loop", "cond_in_while_loop", "dynamic_rnn_lstm")


def save_model(tf, name, export_dir):
    """The case's graph, variables initialized, written as a SavedModel (simple_save)."""
    with tf.Graph().as_default() as g:
        loss_name = CASES[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(
                sess,
                export_dir,
                inputs={"x": g.get_tensor_by_name("x:0")},
                outputs={"loss": g.get_tensor_by_name(loss_name)},
            )
    return loss_name


def load_and_train(tf, export_dir, loss_name):
    """gradients_and_training on the SavedModel loaded (tag "serve")."""
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export_dir)
        return gradients_and_training(tf, g, loss_name, sess)
