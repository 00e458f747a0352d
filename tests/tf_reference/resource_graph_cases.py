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
