"""Pairs of involutions (Neg, Reciprocal, LogicalNot, bitwise Invert) around value-preserving
ops as TF 1.15's arithmetic optimizer leaves them (found running an adversarial autoencoder
that printed its reconstruction loss, -reduce_mean(-reduce_mean(d)), with the wrong sign): a
fetched outer op is kept and computes f of the chain of x, a read one is bypassed. Each case
is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_involutions.py and on tfcluster
by tests/unit/test_involutions_as_tf.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}

_XS = np.array([[1.0, -2.0, 3.0, 0.5], [4.0, 5.0, -6.0, 8.0]], np.float32)


def _case(fn):
    CASES[fn.__name__] = fn
    return fn


def _fetch_each(tf, feeds, outs, extra=None):
    """Each named output fetched in a step of its own (with extra[name] fetched beside it),
    as a list of plain values (float32 as bit patterns)."""
    result = {}
    with tf.Session() as sess:
        for name, t in sorted(outs.items()):
            fetched = sess.run([t, *(extra or {}).get(name, ())], feeds)[0]
            arr = np.asarray(fetched)
            if arr.dtype == np.float32:
                arr = arr.view(np.uint32)
            result[name] = arr.ravel().tolist()
    return result


def _inputs(tf):
    """A fresh graph's float and bool placeholders and the values fed to them."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    b = tf.placeholder(tf.bool, [None, 4], name="b")
    return x, b, {x: _XS, b: _XS > 0}


@_case
def fetched_negations_around_value_preserving_ops(tf):
    """-op(-x) fetched alone for a reduction over no axes (a scalar's mean, axis=[]), Reshape,
    ExpandDims, Squeeze, Transpose, ReverseV2 and two of them in a row."""
    x, _, feeds = _inputs(tf)
    m = tf.reduce_mean(tf.square(x))
    v = tf.reduce_sum(x, 1)
    col = tf.reduce_sum(x, 1, keepdims=True)
    outs = {
        "mean_of_scalar": -tf.reduce_mean(-m),
        "mean_of_scalar_keepdims": -tf.reduce_mean(-m, keepdims=True),
        "sum_no_axes": -tf.reduce_sum(-v, axis=[]),
        "max_no_axes": -tf.reduce_max(-x, axis=[]),
        "reshape": -tf.reshape(-x, [-1]),
        "expand_dims": -tf.expand_dims(-v, 1),
        "squeeze": -tf.squeeze(-col, 1),
        "transpose": -tf.transpose(-x),
        "reverse": -tf.reverse(-x, [1]),
        "transpose_then_reshape": -tf.reshape(tf.transpose(-x), [-1]),
    }
    return _fetch_each(tf, feeds, outs)


@_case
def negations_tf_leaves_as_they_are(tf):
    """No rewrite: a reduction over a size-1 axis, over real axes, an Identity or
    StopGradient between (pruned first), a non value-preserving op (Abs) between."""
    x, _, feeds = _inputs(tf)
    col = tf.reduce_sum(x, 1, keepdims=True)
    outs = {
        "sum_size_one_axis": -tf.reduce_sum(-col, 1),
        "mean_of_rows": -tf.reduce_mean(-x, 1),
        "identity": -tf.identity(-x),
        "stop_gradient": -tf.stop_gradient(-x),
        "add_n_of_one": -tf.add_n([-x]),
        "abs": -tf.abs(-x),
        "adjacent": tf.negative(-x),
    }
    return _fetch_each(tf, feeds, outs)


@_case
def chain_readers_and_fetches(tf):
    """Who else reads or fetches the chain decides: a second reader fetched keeps it, one not
    run does not; the chain op fetched too keeps it; the inner Neg fetched does not; the
    outer Neg read by an Add (which TF's RemoveNegation rewires first) keeps it."""
    x, _, feeds = _inputs(tf)
    g = tf.reshape(-x, [-1])
    outer = -g
    other = g * 2.0
    g2 = tf.reshape(-x, [-1])
    outer2 = -g2
    inner3 = -x
    outer3 = -tf.reshape(inner3, [-1])
    outer4 = -tf.reshape(-x, [-1])
    plus4 = outer4 + 1.0
    outer5 = -tf.reshape(-x, [-1])
    minus5 = outer5 - 1.0
    outs = {
        "second_reader_not_run": outer,
        "second_reader_fetched": outer,
        "chain_op_fetched": outer2,
        "inner_fetched": outer3,
        "outer_read_by_add": plus4,
        "outer_read_by_add_and_fetched": outer4,
        "outer_read_by_sub_and_fetched": outer5,
        "sub_reader": minus5,
    }
    extra = {
        "second_reader_fetched": [other],
        "chain_op_fetched": [g2],
        "inner_fetched": [inner3],
        "outer_read_by_add_and_fetched": [plus4],
        "outer_read_by_sub_and_fetched": [minus5],
    }
    return _fetch_each(tf, feeds, outs, extra)


@_case
def other_involutions(tf):
    """Reciprocal (1/(1/x) read by another op is x exactly; fetched next to each other it is
    computed), LogicalNot and bitwise Invert around a Reshape."""
    x, b, feeds = _inputs(tf)
    x3 = x * 3.0
    outs = {
        "reciprocal_chain_fetched": tf.reciprocal(tf.reshape(tf.reciprocal(x), [-1])),
        "reciprocal_chain_read": tf.reciprocal(tf.reshape(tf.reciprocal(x3), [-1])) + 0.0,
        "reciprocal_adjacent_read": tf.reciprocal(tf.reciprocal(x3)) + 0.0,
        "reciprocal_adjacent_fetched": tf.reciprocal(tf.reciprocal(x3)),
        "logical_not_chain": tf.logical_not(tf.reshape(tf.logical_not(b), [-1])),
        "invert_chain": tf.bitwise.invert(
            tf.reshape(tf.bitwise.invert(tf.cast(x, tf.int32)), [-1])
        ),
    }
    return _fetch_each(tf, feeds, outs)


@_case
def printed_loss_of_a_trained_autoencoder(tf):
    """An autoencoder's loss written -mean(-mean(squared_difference)), trained with Adam and
    fetched with the train op: TF prints it negative; with the arithmetic optimizer off it is
    the true (positive) loss. Eight values (the sizes whose logistic tfcluster rounds as TF's).
    """
    tf.reset_default_graph()
    tf.set_random_seed(3)
    rng = np.random.RandomState(0)
    data = rng.uniform(0, 1, (2, 4)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.get_variable("w", [4, 4], initializer=tf.glorot_uniform_initializer())
    y = tf.sigmoid(tf.matmul(x, w))
    likelihood = -tf.reduce_mean(tf.reduce_mean(tf.squared_difference(x, y)))
    likelihood = tf.reduce_mean(likelihood)
    loss = -likelihood
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    printed = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            _, value = sess.run([train, loss], {x: data})
            printed.append(float(value))
        alone = float(sess.run(loss, {x: data}))
    off = tf.ConfigProto()
    off.graph_options.rewrite_options.arithmetic_optimization = 2  # RewriterConfig.OFF
    with tf.Session(config=off) as sess:
        sess.run(tf.global_variables_initializer())
        unoptimized = float(sess.run(loss, {x: data}))
    return {"printed": printed, "fetched_alone": alone, "optimizer_off": unoptimized}
