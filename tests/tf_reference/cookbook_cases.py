"""Behaviours of the TF1 cookbook programs (linear and logistic regression, SVMs, small
networks fed [None, k] placeholders) that printed different last digits on tfcluster. Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_cookbook.py and on tfcluster
by tests/unit/test_cookbook_behaviours.py. Python 3.7 code; inputs from seeded numpy.

Values are compared bit for bit, so each case returns float arrays as they are and the sign
bits of results that may be zeros (-0.0 == 0.0 would hide them).
"""

from __future__ import annotations

import numpy as np

# (m, k, n) of a product with one output row or column, transposes, dtype.
MATVEC_SHAPES = [
    (1, 3, 1),
    (1, 9, 1),
    (1, 20, 1),
    (1, 20, 5),
    (1, 127, 33),
    (1, 128, 33),
    (1, 200, 7),
    (1, 1000, 3),
    (4, 20, 1),
    (13, 128, 1),
    (5, 300, 1),
    (1, 128, 8100),  # a row of 8100 floats passes Eigen's 32000 bytes: blocks of 4
    (8100, 128, 1),
]


def _matvec_case(tf, rs, m, k, n, ta, tb, dtype):
    a = rs.normal(size=(m, k)).astype(dtype)
    b = rs.normal(size=(k, n)).astype(dtype)
    a_in = np.ascontiguousarray(a.T) if ta else a
    b_in = np.ascontiguousarray(b.T) if tb else b
    return (
        a_in,
        b_in,
        tf.matmul(tf.constant(a_in), tf.constant(b_in), transpose_a=ta, transpose_b=tb),
    )


def matvec_products(tf):
    """MatMul with one output row (any transposes) or one output column with a transposed
    first operand: TF sums these as Eigen's matrix-vector routine does."""
    tf.reset_default_graph()
    rs = np.random.RandomState(0)
    keys, fetches = [], []
    for m, k, n in MATVEC_SHAPES:
        for ta in (False, True):
            for tb in (False, True):
                if m > 1 and not ta:
                    continue  # TF's blocked GEMM: not matched
                for dtype in (np.float32, np.float64):
                    if max(m, n) > 1000 and (dtype == np.float64 or ta != (m > 1) or tb):
                        continue
                    _, _, product = _matvec_case(tf, rs, m, k, n, ta, tb, dtype)
                    if max(m, n) > 1000:  # its ends only: every output is summed alike
                        flat = tf.reshape(product, [-1])
                        product = tf.concat([flat[:48], flat[-48:]], 0)
                    keys.append(f"{m}x{k}x{n}_ta{int(ta)}_tb{int(tb)}_{np.dtype(dtype).name}")
                    fetches.append(product)
    with tf.Session() as sess:
        values = sess.run(fetches)
    return dict(zip(keys, values))


def unit_axis_reductions(tf):
    """Sums and means over axes TF's ReductionHelper merges with their size-1 neighbours
    (a whole-vector sum in Eigen's order), and over size-1 axes only (a copy: -0.0 stays)."""
    tf.reset_default_graph()
    rs = np.random.RandomState(1)
    out = {}
    cases = [((20, 1), 0), ((6, 50, 1), 1), ((2000, 1), 0), ((1, 20, 1), 1), ((3, 20, 1), (1, 2))]
    fetches = []
    for shape, axis in cases:
        x = tf.constant(rs.normal(size=shape).astype(np.float32))
        fetches.append((tf.reduce_sum(x, axis=axis), tf.reduce_mean(x, axis=axis)))
    zeros = tf.constant(np.array([[-0.0], [1.0], [-0.0]], np.float32))
    with tf.Session() as sess:
        values, copied = sess.run([fetches, tf.reduce_sum(zeros, axis=1)])
    for (shape, axis), (total, mean) in zip(cases, values):
        key = "x".join(map(str, shape)) + "_axis" + str(axis).replace(" ", "")
        out[key + "_sum"] = total
        out[key + "_mean"] = mean
    out["size1_axis_copy"] = copied
    out["size1_axis_copy_signbit"] = np.signbit(copied)
    return out


def log1p_float32(tf):
    """log1p of float32 values: 8-float packets by Kahan's formula over Eigen's log, the last
    size % 8 by the C library."""
    tf.reset_default_graph()
    rs = np.random.RandomState(2)
    special = [0.0, -0.0, 1e-8, -1e-8, 1e-30, -0.5, -0.999999, -1.0, -2.0, 1e30, 3.4e38, np.inf]
    x = np.concatenate(
        [
            np.array(special, np.float32),
            rs.normal(0, 1, 200).astype(np.float32),
            np.exp(rs.uniform(-20, 20, 101)).astype(np.float32),
        ]
    )
    with tf.Session() as sess:
        y = sess.run(tf.log1p(tf.constant(x)))
    return {"x": x, "log1p": y}


def neg_zero_signs(tf):
    """Neg of zeros: TF's packets compute 0 - x (+0.0), its scalar tail -x (-0.0)."""
    tf.reset_default_graph()
    z32 = np.array([0.0, -0.0] * 6 + [0.0], np.float32)  # 13: one packet of 8, a tail of 5
    z64 = np.array([0.0, -0.0, 0.0, 0.0, -0.0, 0.0], np.float64)  # one packet of 4, tail 2
    scalar = tf.negative(tf.constant(0.0))  # no packet: -0.0, and still a scalar
    with tf.Session() as sess:
        n32, n64, s = sess.run(
            [tf.negative(tf.constant(z32)), tf.negative(tf.constant(z64)), scalar]
        )
    return {
        "float32": np.signbit(n32),
        "float64": np.signbit(n64),
        "scalar": np.asarray(s),
        "scalar_signbit": np.signbit(s),
    }


def _sigmoid_xent_inputs(rs):
    x = rs.normal(1, 2, (20, 1)).astype(np.float32)
    y = (rs.uniform(size=(20, 1)) > 0.5).astype(np.float32)
    return x, y


def addn_input_order_program(tf, rewriter_off):
    """AddN adds its inputs in the order of their names (TF's arithmetic optimizer sorts the
    inputs of commutative ops), unless the config turns that optimizer off; the gradient of
    sigmoid_cross_entropy_with_logits aggregates four paths so."""
    tf.reset_default_graph()
    rs = np.random.RandomState(3)
    x, y = _sigmoid_xent_inputs(rs)
    logits = tf.placeholder(tf.float32, [None, 1])
    labels = tf.placeholder(tf.float32, [None, 1])
    loss = tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=labels)
    grad = tf.gradients(loss, [logits])[0]
    # Names sort in the other order than the inputs are given.
    parts = [tf.placeholder(tf.float32, [3], name=n) for n in ("d", "c", "b", "a")]
    total = tf.add_n(parts)
    config = tf.ConfigProto()
    if rewriter_off:
        config.graph_options.rewrite_options.arithmetic_optimization = 2  # RewriterConfig.OFF
    feeds = {logits: x, labels: y}
    feeds.update(
        zip(
            parts,
            [
                np.array([-0.059008945, 1e-8, 3.0], np.float32),
                np.array([0.0, -1.0, 1e8], np.float32),
                np.array([-1.0, 1.0, -1e8], np.float32),
                np.array([1.0, 3e-8, 1.0], np.float32),
            ],
        )
    )
    with tf.Session(config=config) as sess:
        g, t = sess.run([grad, total], feeds)
    return {"gradient": g, "add_n": t, "gradient_signbit": np.signbit(g)}


def linear_models_training(tf):
    """A cookbook-style linear regression and logistic regression on [None, 3] placeholders,
    trained by gradient descent on seeded batches: every printed loss and weight."""
    rs = np.random.RandomState(4)
    x_all = rs.normal(size=(150, 3)).astype(np.float32)
    w_true = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y_reg = (x_all.dot(w_true) + 0.3 + rs.normal(0, 0.2, (150, 1))).astype(np.float32)
    y_cls = (y_reg > 0.3).astype(np.float32)
    out = {}
    for kind, y_all in (("regression", y_reg), ("logistic", y_cls)):
        tf.reset_default_graph()
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 1])
        a = tf.Variable(tf.random_normal([3, 1]))
        b = tf.Variable(tf.random_normal([1, 1]))
        model = tf.add(tf.matmul(x, a), b)
        if kind == "regression":
            loss = tf.reduce_mean(tf.square(y - model))
        else:
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=model, labels=y))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        losses, weights = [], []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(40):
                idx = rs.choice(150, size=25)
                _, value = sess.run([train, loss], {x: x_all[idx], y: y_all[idx]})
                losses.append(value)
                weights.append(np.concatenate([sess.run(a).ravel(), sess.run(b).ravel()]))
        out[kind + "_losses"] = np.array(losses)
        out[kind + "_weights"] = np.array(weights)
    return out


def numpy_input_fn_shuffled_epochs(tf):
    """numpy_input_fn(shuffle=True) feeds every row once per epoch (in order from a random
    start; the random shuffle queue mixes them): what is deterministic of its batches."""
    out = {}
    for rows, batch, epochs in ((40, 8, 2), (41, 8, 3)):
        tf.reset_default_graph()
        x = {"a": np.arange(rows, dtype=np.float64), "b": np.arange(rows, dtype=np.float64) * 10}
        y = np.arange(rows, dtype=np.float64) * 2
        fn = tf.estimator.inputs.numpy_input_fn(
            x, y=y, batch_size=batch, num_epochs=epochs, shuffle=True
        )
        features, labels = fn()
        counts = np.zeros(rows, np.int64)
        sizes, paired = [], True
        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                f, lab = sess.run([features, labels])
                paired = paired and bool(
                    np.all(f["a"] * 2 == lab) and np.all(f["b"] == f["a"] * 10)
                )
                counts += np.bincount(f["a"].astype(np.int64), minlength=rows)
                sizes.append(len(lab))
        key = f"{rows}_rows_batch{batch}_epochs{epochs}"
        out[key + "_counts"] = counts
        out[key + "_batch_sizes"] = np.array(sorted(sizes))
        out[key + "_rows_paired"] = np.array(paired)
    return out


def division_by_constant(tf):
    """x / c with a constant c runs as x * (1 / c) (TF's constant folding strength-reduces
    it), for float and complex types; a fed divisor divides."""
    tf.reset_default_graph()
    rs = np.random.RandomState(5)
    out = {}
    fetches = {}
    feeds = {}
    for dtype in (np.float32, np.float64, np.complex64):
        x = rs.normal(3, 2, (37, 1)).astype(dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rs.normal(size=(37, 1)).astype(dtype)
        ph = tf.placeholder(x.dtype, [None, 1])
        feeds[ph] = x
        name = np.dtype(dtype).name
        fetches[name + "_by_255"] = ph / tf.constant(255.0, dtype=x.dtype)
        fetches[name + "_by_folded_7.1"] = tf.truediv(ph, tf.constant([[7.1]], dtype=x.dtype) * 1)
        if np.dtype(dtype).kind == "f":  # (complex division itself is not Eigen's yet)
            d = tf.placeholder(x.dtype, [])
            feeds[d] = np.array(7.1, dtype)
            fetches[name + "_by_fed_7.1"] = ph / d
    with tf.Session() as sess:
        values = sess.run(fetches, feeds)
    out.update(values)
    return out


CASES = {
    "division_by_constant": division_by_constant,
    "numpy_input_fn_shuffled_epochs": numpy_input_fn_shuffled_epochs,
    "matvec_products": matvec_products,
    "unit_axis_reductions": unit_axis_reductions,
    "log1p_float32": log1p_float32,
    "neg_zero_signs": neg_zero_signs,
    "addn_input_order": lambda tf: addn_input_order_program(tf, rewriter_off=False),
    "addn_input_order_rewriter_off": lambda tf: addn_input_order_program(tf, rewriter_off=True),
    "linear_models_training": linear_models_training,
}
