"""Programs for the order in which TF 1.15's CPU kernels add up float64 values: each case runs
reductions of one kind (whole tensors, innermost axes, outer axes, middle axes and mixed
axes TF transposes first) of float64 values spread over many magnitudes, so that the order of
the additions shows in the last bits, with `tf` (TensorFlow 1.15 when recorded by
record_float64_sum_order.py, tfcluster in tests/unit/test_float64_sum_order.py), and returns
every result's bytes. Sessions run with an intra-op pool of three threads: a whole-tensor sum
of more than ~130000 values is split into one block per thread. Python 3.7 code."""

import numpy as np

# TF 1.15 sizes its intra-op pool once per process, from the first session's config: every
# session here asks for the same.
INTRA_THREADS = 3


def _values(n, seed):
    """Exactly the same values on any numpy: ldexp of RandomState draws, exponents -30..29."""
    rng = np.random.RandomState(seed)
    return np.ldexp(rng.randn(n), rng.randint(-30, 30, n))


def _hex(value):
    value = np.asarray(value)
    return {"dtype": str(value.dtype), "shape": list(value.shape), "bytes": value.tobytes().hex()}


# (shape, axis) pairs, by the way TF's ReductionHelper sees them.
WHOLE = [
    ((1,), None),
    ((3,), None),
    ((4,), None),
    ((5,), None),
    ((8,), None),
    ((9,), None),
    ((17,), None),
    ((1003,), None),
    ((4096,), None),
    ((4097,), None),
    ((4100,), None),
    ((8193,), None),
    ((12289,), None),
    ((65537,), None),
    ((100003,), None),
    ((129000,), None),
    ((131073,), None),
    ((250001,), None),
    ((1000003,), None),
    ((37, 53), None),
    ((5, 6, 7), (0, 1, 2)),
    ((1, 9, 1), (1,)),
]
INNER = [
    ((3, 5), 1),
    ((16, 7), -1),
    ((5, 9), 1),
    ((2, 4), 1),
    ((7, 3), 1),
    ((33, 4096), 1),
    ((3, 4097), 1),
    ((5, 8195), 1),
    ((2, 10007), 1),
    ((3, 20003), 1),
    ((4, 5, 6), 2),
    ((4, 5, 6), (1, 2)),
    ((1, 5, 1, 3), (3,)),
    ((300, 129), 1),
]
OUTER = [
    ((5, 3), 0),
    ((1000, 3), 0),
    ((7, 33), 0),
    ((3, 4, 5), 0),
    ((3, 4, 5), (0, 1)),
    ((513, 1), 0),
    ((4000, 7), 0),
]
MIDDLE = [
    ((3, 4, 5), 1),
    ((6, 700, 5), 1),
    ((3, 4, 5), (0, 2)),
    ((9, 2, 301), (0, 2)),
    ((4, 5, 6, 7), (0, 2)),
    ((2, 3, 4, 5), (1, 3)),
    ((3, 4, 5, 6), (1, 2)),
    ((2, 3, 4, 5, 6), (0, 2, 4)),
    ((2, 3, 1, 4, 5), (1, 2, 4)),
]
KINDS = {"whole": WHOLE, "inner": INNER, "outer": OUTER, "middle": MIDDLE}


def _reduce(tf, kind):
    out = {}
    config = tf.ConfigProto(intra_op_parallelism_threads=INTRA_THREADS)
    for i, (shape, axis) in enumerate(KINDS[kind]):
        x = _values(int(np.prod(shape)), 1000 + i).reshape(shape)
        with tf.Graph().as_default():
            c = tf.placeholder(tf.float64, shape)
            built = {
                "sum": tf.reduce_sum(c, axis),
                "sum_keep": tf.reduce_sum(c, axis, keepdims=True),
                "mean": tf.reduce_mean(c, axis),
            }
            with tf.Session(config=config) as sess:
                values = sess.run(built, {c: x})
        label = "x".join(map(str, shape)) + "_" + str(axis)
        for name, value in values.items():
            out[label + "_" + name] = _hex(value)
    return out


def _nn(tf):
    """Functions that sum rows of a float64 matrix inside their kernels: rows of one leaf
    (with and without a tail of size % 4 values) and of several (a tree), and L2Loss, a whole
    sum of an expression, over sizes its cost model splits into 1, 2 and 3 blocks."""
    out = {}
    config = tf.ConfigProto(intra_op_parallelism_threads=INTRA_THREADS)
    shapes = [(3, 5), (16, 10), (7, 4), (4, 1003), (2, 4099), (1, 9), (3, 8192), (2, 9001)]
    # Logits spread over +-760: exps, probabilities and gradients below the normal range.
    wide = [(6, 11), (5, 4101)]
    for shape in shapes + wide:
        n = int(np.prod(shape))
        x = _values(n, 7).reshape(shape) / 2.0**20
        if shape in wide:
            x = np.random.RandomState(3).uniform(-760.0, 0.0, n).reshape(shape)
        labels = np.abs(_values(n, 8)).reshape(shape)
        labels /= labels.sum(axis=1, keepdims=True)
        sparse = np.arange(shape[0], dtype=np.int32) * 7 % shape[1]
        with tf.Graph().as_default():
            c = tf.placeholder(tf.float64, shape)
            built = {
                "l2_loss": tf.nn.l2_loss(c),
                "softmax": tf.nn.softmax(c),
                "log_softmax": tf.nn.log_softmax(c),
                "xent": tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=c),
                "sparse_xent": tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=sparse, logits=c
                ),
                "xent_grad": tf.gradients(
                    tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=c), c
                )[0],
            }
            with tf.Session(config=config) as sess:
                values = sess.run(built, {c: x})
        label = "x".join(map(str, shape)) + ("_wide" if shape in wide else "")
        for name, value in values.items():
            out[label + "_" + name] = _hex(value)
    for n in [20000, 40000, 60000, 70001, 100003, 250001]:
        x = _values(n, 9)
        with tf.Graph().as_default():
            c = tf.placeholder(tf.float64, [n])
            with tf.Session(config=config) as sess:
                out[f"l2_loss_{n}"] = _hex(sess.run(tf.nn.l2_loss(c), {c: x}))
    return out


def _case(kind):
    def program(tf):
        return _reduce(tf, kind)

    return program


CASES = {kind: _case(kind) for kind in KINDS}
CASES["nn"] = _nn
