"""The `get_variable(use_resource=True)` program that record_resource_graphs.py runs on
TF 1.15 and tests/unit/test_resource_graph_import.py runs on tfcluster (Python 3.7 code)."""

import numpy as np


def data(seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, size=(8, 3)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [2.0]], np.float32) + 0.25).astype(np.float32)
    return x, y


def get_variable_model(tf, optimizer_name):
    """Resource variables from tf.get_variable (dense and embedding rows) trained by Adam or
    Nesterov momentum: (x, y, pred, loss, train_op, global step)."""
    tf.set_random_seed(5)
    xs = tf.placeholder(tf.float32, [None, 3], name="x")
    ys = tf.placeholder(tf.float32, [None, 1], name="y")
    with tf.variable_scope("model", use_resource=True):
        w = tf.get_variable("w", [3, 1], initializer=tf.glorot_uniform_initializer(seed=7))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        emb = tf.get_variable("emb", [5, 1], initializer=tf.random_normal_initializer(seed=9))
    ids = tf.constant([0, 2, 2, 4, 1, 0, 3, 4], name="ids")
    pred = tf.matmul(xs, w) + b + tf.nn.embedding_lookup(emb, ids)
    loss = tf.reduce_mean(tf.square(pred - ys), name="loss")
    step = tf.train.get_or_create_global_step()
    if optimizer_name == "adam":
        opt = tf.train.AdamOptimizer(0.05)
    else:
        opt = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True)
    train_op = opt.minimize(loss, global_step=step, name="train")
    return xs, ys, pred, loss, train_op, step


def resource_variable_api(tf):
    """tf.Variable(use_resource=True)'s methods and what is built on them: initialized_value,
    count_up_to (and its OutOfRangeError), ExponentialMovingAverage, sparse_read,
    tf.scatter_update, load, eval, assign without a read; names, shapes and op types."""
    out = {}
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0], use_resource=True, name="a")
        b = tf.Variable(a.initialized_value() * 2, use_resource=True, name="b")
        c = tf.Variable(0, use_resource=True, name="c")
        count = c.count_up_to(2)
        ema = tf.train.ExponentialMovingAverage(0.5)
        update_average = ema.apply([a])
        rows = a.sparse_read([1])
        scattered = tf.scatter_update(a, [0], [5.0])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["b"] = sess.run(b)
            out["counts"] = [sess.run(count), sess.run(count)]
            try:
                sess.run(count)
            except tf.errors.OutOfRangeError as e:
                out["count_error"] = type(e).__name__
            sess.run(update_average)
            out["average"] = sess.run(ema.average(a))
            out["rows"] = sess.run(rows)
            out["scattered"] = sess.run(scattered)
            a.load([7.0, 8.0], sess)
            out["loaded"] = a.eval(sess)
            out["assign_no_read"] = sess.run(a.assign([1.0, 1.0], read_value=False))
            out["after_assign"] = sess.run(a)
        variables = tf.global_variables()
        out["names"] = [v.name for v in variables]
        out["shapes"] = [v.shape.as_list() for v in variables]
        out["op_types"] = [v.op.type for v in variables]
        out["value_op"] = a.value().op.type
        out["initializer_op"] = a.initializer.type
        out["handle_dtype"] = a.handle.dtype.name
        out["average_op"] = ema.average(a).op.type
    return out


def custom_gradient_creating_a_resource_variable(tf):
    """@custom_gradient around a function that makes a resource variable: its grad_fn gets
    the variable and gives it a gradient (TF refuses ref variables there)."""
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])

        @tf.custom_gradient
        def scaled(x):
            with tf.variable_scope("cg", use_resource=True):
                w = tf.get_variable("w", [2], initializer=tf.constant_initializer([3.0, 4.0]))

            def grad(dy, variables=None):
                return dy * w * 10.0, [dy * x * 100.0]

            return x * w, grad

        y = scaled(x)
        w = tf.global_variables()[0]
        grads = tf.gradients(tf.reduce_sum(y), [x, w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {
                "y": sess.run(y),
                "grads": [sess.run(g) for g in grads],
                "variable": w.name,
                "variable_op": w.op.type,
            }
