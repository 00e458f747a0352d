"""A small sequence model (a bidirectional LSTM/GRU layer under a two-layer stacked LSTM with a
projection, then a linear read-out), built the same way by TensorFlow 1.15 (record_rnn.py
trains it a few steps and saves a checkpoint) and by tfcluster (the test restores TF's
checkpoint by variable name and must compute what TF computed).

Kept runnable on Python 3.7 and free of anything but numpy.
"""

from __future__ import annotations

import os

import numpy as np

BATCH, TIME, DEPTH, CLASSES = 3, 6, 4, 3
LENGTHS = [6, 4, 1]


def inputs():
    t = np.arange(BATCH * TIME * DEPTH, dtype=np.float64)
    x = np.sin(t * 0.37).reshape(BATCH, TIME, DEPTH).astype(np.float32)
    labels = (np.arange(BATCH * TIME) % CLASSES).reshape(BATCH, TIME).astype(np.int32)
    return x, labels


def build(tf):
    """(placeholders, tensors to fetch, train op) in the default graph."""
    x = tf.placeholder(tf.float32, [BATCH, TIME, DEPTH], name="x")
    labels = tf.placeholder(tf.int32, [BATCH, TIME], name="labels")
    lengths = tf.constant(LENGTHS, name="lengths")
    fw = tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True)
    bw = tf.nn.rnn_cell.GRUCell(4)
    (o_fw, o_bw), _ = tf.nn.bidirectional_dynamic_rnn(
        fw, bw, x, sequence_length=lengths, dtype=tf.float32
    )
    both = tf.concat([o_fw, o_bw], 2)
    stack = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.BasicLSTMCell(6), tf.nn.rnn_cell.LSTMCell(6, num_proj=4)]
    )
    out, state = tf.nn.dynamic_rnn(stack, both, sequence_length=lengths, dtype=tf.float32)
    with tf.variable_scope("softmax"):
        w = tf.get_variable("w", [4, CLASSES])
        b = tf.get_variable("b", [CLASSES], initializer=tf.zeros_initializer())
    logits = tf.reshape(tf.matmul(tf.reshape(out, [-1, 4]), w) + b, [BATCH, TIME, CLASSES])
    mask = tf.sequence_mask(lengths, TIME, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    fetch = {
        "logits": logits,
        "loss": loss,
        "c1": state[1].c,
        "h1": state[1].h,
        "h0": state[0].h,
    }
    return {x: None, labels: None}, fetch, train


def _feeds(placeholders):
    x, labels = inputs()
    return dict(zip(placeholders, (x, labels)))


def train_and_save(tf, directory):
    """TF's side: trains 5 steps from a seeded start, saves, records what the model computes
    then and after one more step."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(11)
        placeholders, fetch, train = build(tf)
        feeds = _feeds(placeholders)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(train, feeds)
            if not os.path.isdir(directory):
                os.makedirs(directory)
            saver.save(sess, os.path.join(directory, "model.ckpt"), write_meta_graph=False)
            at_checkpoint = sess.run(fetch, feeds)
            sess.run(train, feeds)
            after_step = sess.run(fetch, feeds)
            variables = [[v.op.name, v.shape.as_list()] for v in tf.global_variables()]
    return {
        "variables": variables,
        "at_checkpoint": at_checkpoint,
        "after_step": after_step,
    }
