"""Behaviours the TF1 programs of MorvanZhou's, golbin's and sjchoi86's tutorials showed apart
on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_public_sweep3.py and on tfcluster by tests/unit/test_public_sweep3_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import sys

import numpy as np


def _outcome(build):
    """What building one op gives: its dtype, type and input dtypes, or the error."""
    try:
        t = build()
    except (TypeError, ValueError) as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {
        "dtype": t.dtype.name,
        "op": t.op.type,
        "inputs": [i.dtype.name for i in t.op.inputs],
        "name": t.op.name,
    }


def operand_dtypes_follow_the_first_input(tf):
    """Ops whose inputs share one dtype attr take it from their first input, as TF 1.15's
    op_def_library converts inputs in order: a float64 numpy array then a Python float is
    float64 (tf.pow(x, 1.7) on np.linspace data), a Python value first fixes the dtype the
    later numpy array is cast to, a later tensor of another dtype fails. tf.matmul and
    tf.add_n convert their operands each on its own; tf.stack of numpy arrays packs them."""
    tf.reset_default_graph()
    x = np.abs(np.linspace(-5, 5, 7))
    c32 = tf.constant(1.0)
    c64 = tf.constant(1.0, tf.float64)
    builds = {
        "pow_array_float": lambda: tf.pow(x, 1.7),
        "pow_float_array": lambda: tf.pow(1.7, x),
        "pow_int_array_int": lambda: tf.pow(np.arange(3), 2),
        "pow_array_tensor": lambda: tf.pow(x, c32),
        "pow_tensor_array": lambda: tf.pow(c32, x),
        "add_array_float": lambda: tf.add(x, 1.7),
        "add_array_tensor": lambda: tf.add(x, c32),
        "add_int_tensor": lambda: tf.add(1, c32),
        "multiply_float_tensor64": lambda: tf.multiply(2.0, c64),
        "maximum_int_array": lambda: tf.maximum(3, x),
        "minimum_int_array_int": lambda: tf.minimum(np.arange(3), 1),
        "subtract_list_int_array": lambda: tf.subtract([1.0, 2.0], np.array([1, 2])),
        "less_array_float": lambda: tf.less(x, 2.5),
        "equal_int_array_float": lambda: tf.equal(np.arange(3), 1.5),
        "squared_difference_int_array": lambda: tf.squared_difference(1, x),
        "atan2_array_float": lambda: tf.atan2(x, 1.0),
        "igamma_array_float": lambda: tf.math.igamma(x + 1.0, 1.0),
        "floordiv_array_int": lambda: tf.floordiv(x, 2),
        "realdiv_array_float": lambda: tf.realdiv(x, 2.0),
        "div_array_float": lambda: tf.div(x, 2.0),
        "floormod_array_float": lambda: tf.mod(x, 2.0),
        "where_list_array": lambda: tf.where([True, False], [1.0, 2.0], np.array([3.0, 4.0])),
        "matmul_array64_tensor32": lambda: tf.matmul(x.reshape(1, 7), tf.ones([7, 1])),
        "matmul_tensor64_list": lambda: tf.matmul(tf.ones([1, 1], tf.float64), [[1.0]]),
        "add_n_array_list": lambda: tf.add_n([np.ones(2), [1.0, 2.0]]),
        "add_n_tensor_array": lambda: tf.add_n([tf.ones([2]), np.ones(2)]),
        "add_n_tensor_list": lambda: tf.add_n([tf.ones([2]), [1.0, 2.0]]),
        "concat_array_list": lambda: tf.concat([np.ones(2), [1.0]], 0),
        "concat_tensor_array": lambda: tf.concat([tf.ones([2]), np.ones(2)], 0),
        "stack_arrays": lambda: tf.stack([np.ones(2), np.ones(2)]),
        "stack_array_list": lambda: tf.stack([np.ones(2), [1.0, 2.0]]),
        "stack_list_array": lambda: tf.stack([[1.0, 2.0], np.ones(2)]),
        "constant_of_arrays": lambda: tf.constant([np.ones(2), np.ones(2)]),
    }
    outcomes = {name: _outcome(build) for name, build in builds.items()}
    fetch = {
        "pow_array_float": tf.pow(x, 1.7),
        "maximum_int_array": tf.maximum(3, x),
        "squared_difference_int_array": tf.squared_difference(1, x),
        "where_list_array": tf.where([True, False], [1.0, 2.0], np.array([3.5, 4.5])),
        "stack_arrays": tf.stack([np.ones(2), np.arange(2.0)]),
    }
    with tf.Session() as sess:
        values = sess.run(fetch)
    return {"outcomes": outcomes, "values": values}


def sampled_expected_counts_and_nce_steps(tf):
    """Candidate samplers with unique=True give each value's expected count as TF 1.15's
    ExpectedCountHelper computes it in float: -expm1f(num_tries * log1pf(-p)) with glibc's
    float functions (golbin's word2vec: tf.nn.nce_loss over 21 words drifted from the first
    step). The samplers' values and counts, and a few Adam steps of an nce_loss."""
    tf.reset_default_graph()
    tf.set_random_seed(1)
    rng = np.random.RandomState(0)
    vocab, dim, batch, sampled = 21, 2, 20, 15
    true = tf.constant(rng.randint(0, vocab, (batch, 2)), tf.int64)
    samplers = {
        "log_uniform": tf.nn.log_uniform_candidate_sampler(true, 2, sampled, True, vocab, seed=3),
        "log_uniform_big": tf.nn.log_uniform_candidate_sampler(true, 2, 200, True, 5000, seed=4),
        "uniform": tf.nn.uniform_candidate_sampler(true, 2, sampled, True, vocab, seed=5),
    }
    inputs = tf.placeholder(tf.int32, [batch])
    labels = tf.placeholder(tf.int32, [batch, 1])
    emb = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0))
    weights = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0))
    biases = tf.Variable(tf.zeros([vocab]))
    per_example = tf.nn.nce_loss(
        weights, biases, labels, tf.nn.embedding_lookup(emb, inputs), sampled, vocab
    )
    loss = tf.reduce_mean(per_example)
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    out = {"samplers": {}, "losses": [], "per_example": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for name, (values, true_counts, sampled_counts) in samplers.items():
            v, t, c = sess.run([values, true_counts, sampled_counts])
            out["samplers"][name] = {"values": v, "true": t, "sampled": c}
        for _ in range(4):
            feed = {inputs: rng.randint(0, vocab, batch), labels: rng.randint(0, vocab, (batch, 1))}
            out["per_example"].append(sess.run(per_example, feed))
            out["losses"].append(sess.run([train, loss], feed)[1])
    return out


# Modules of TF 1.15's tree (attribute paths from tf), and names TF 0.x programs still use.
_MODULE_PATHS = [
    "",
    "nn",
    "train",
    "layers",
    "losses",
    "math",
    "data",
    "summary",
    "gfile",
    "io",
    "image",
    "linalg",
    "random",
    "sparse",
    "strings",
    "nn.rnn_cell",
    "app",
    "saved_model",
    "metrics",
    "keras",
    "keras.layers",
    "keras.backend",
    "keras.datasets.mnist",
    "keras.optimizers",
    "estimator",
    "estimator.inputs",
    "flags",
    "app.flags",
]
_OLD_NAMES = ["mul", "sub", "neg", "SummaryWriter", "train.SummaryWriter", "nn.rnn_cell.foo"]


def missing_attribute_messages(tf):
    """What a name TF 1.15 does not have raises: AttributeError naming the module as TF's
    module objects are named ('tensorflow', 'tensorflow._api.v1.train', Keras's and the
    Estimator's own packages, absl's flags module): sjchoi86's notebooks call tf.mul and
    tf.train.SummaryWriter (TF 0.x names)."""

    # The module `import tensorflow as tf` gives (the recorder hands cases tf.compat.v1,
    # whose modules TF names otherwise).
    top = sys.modules["tensorflow"] if tf.__name__.startswith("tensorflow") else tf

    def attribute(path):
        value = top
        for part in path.split("."):
            if part:
                value = getattr(value, part)
        return value

    def message(fn):
        try:
            fn()
        except AttributeError as e:
            return str(e)
        return None

    missing = {
        path or "tf": message(lambda path=path: attribute(path).zz_no_such_name)
        for path in _MODULE_PATHS
    }
    old = {name: message(lambda name=name: attribute(name)) for name in _OLD_NAMES}
    return {"missing": missing, "old_names": old}


def matmul_shape_errors(tf):
    """Products whose shapes do not fit fail as TF 1.15's shape functions say it: the node's
    own name (its scope and number: 'nce_loss/MatMul', 'MatMul_2'), the op type and the
    input shapes as [20,1] (sjchoi86's word2vec notebook passes nce_loss's arguments in the
    TF 0.x order). Also the rank and batch errors of MatMul and BatchMatMulV2, and the
    shapes of products that do fit."""
    tf.reset_default_graph()

    def outcome(build):
        try:
            t = build()
        except (TypeError, ValueError) as e:
            return {"error": type(e).__name__, "message": str(e)}
        return {"name": t.op.name, "op": t.op.type, "shape": str(t.shape)}

    labels = tf.placeholder(tf.int32, [20, 1])
    weights = tf.Variable(tf.zeros([30, 2]))
    biases = tf.Variable(tf.zeros([30]))
    embed = tf.placeholder(tf.float32, [20, 2])
    z = tf.zeros
    builds = [
        (
            "nce_loss_old_argument_order",
            lambda: tf.nn.nce_loss(weights, biases, embed, labels, 15, 30),
        ),
        ("depth_mismatch", lambda: tf.matmul(z([3, 4]), z([5, 6]))),
        ("depth_mismatch_again", lambda: tf.matmul(z([3, 4]), z([5, 6]))),
        ("transpose_b_mismatch", lambda: tf.matmul(z([20, 1]), z([15, 2]), transpose_b=True)),
        ("transpose_a_mismatch", lambda: tf.matmul(z([4, 3]), z([5, 6]), transpose_a=True)),
        ("named_mismatch", lambda: tf.matmul(z([3, 4]), z([5, 6]), name="product")),
        ("rank_1_operand", lambda: tf.matmul(z([4]), z([4, 6]))),
        ("batch_depth_mismatch", lambda: tf.matmul(z([2, 3, 4]), z([2, 5, 6]))),
        ("batch_dims_mismatch", lambda: tf.matmul(z([2, 3, 4]), z([3, 4, 6]))),
        ("batch_broadcast", lambda: tf.matmul(z([2, 3, 4]), z([4, 6]))),
        ("batch_broadcast_ranks", lambda: tf.matmul(z([5, 1, 3, 4]), z([2, 4, 6]))),
        ("fits", lambda: tf.matmul(z([3, 4]), z([4, 6]))),
    ]
    return {name: outcome(build) for name, build in builds}


def unsorted_segment_sums_and_sparse_adam(tf):
    """tf.unsorted_segment_sum adds each row into its segment in the row order, in the
    tensor's own dtype, as TF 1.15's CPU kernel does (not in float64 and rounded once): the
    sums of a gather's gradient over repeated ids, so the sparse Adam updates of golbin's
    word2vec (16 words, 35 gathered rows a step) drifted from the third step."""
    tf.reset_default_graph()
    rng = np.random.RandomState(1)
    vocab = 16
    ids = rng.randint(0, vocab, 200)
    sums = {}
    for dtype in (np.float32,):  # float64 sums are not yet TF's order (left)
        rows = (rng.randn(200, 3) * np.exp(rng.randn(200, 3) * 3)).astype(dtype)
        sums[np.dtype(dtype).name] = tf.unsorted_segment_sum(rows, ids, vocab)
        sums[np.dtype(dtype).name + "_vector"] = tf.unsorted_segment_sum(rows[:, 0], ids, vocab)
    table = tf.Variable(rng.uniform(-1, 1, (vocab, 2)).astype(np.float32))
    picked = tf.placeholder(tf.int32, [35])
    weights = tf.placeholder(tf.float32, [35, 2])
    loss = tf.reduce_sum(tf.gather(table, picked) * weights)
    dense_grad = tf.convert_to_tensor(tf.gradients(loss, [table])[0])
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    out = {"dense_grads": [], "tables": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["sums"] = sess.run(sums)
        for _ in range(6):
            feed = {
                picked: rng.randint(0, vocab, 35),
                weights: (rng.randn(35, 2) * 0.01).astype(np.float32),
            }
            out["dense_grads"].append(sess.run(dense_grad, feed))
            sess.run(train, feed)
            out["tables"].append(sess.run(table))
    return out


def library_functions_of_other_dtypes(tf):
    """TF's own functions pass their inner ops operands of the right dtype: tf.repeat casts
    int64 repeats to int32, random_gamma's float64 floor is a float64 numpy scalar;
    leaky_relu's alpha is a float32 attr, so a float64 input is scaled by 0.200000003."""
    with tf.Graph().as_default():
        outs = {
            "repeat_int64": tf.repeat(tf.constant([1, 2]), tf.constant([2, 3], tf.int64)),
            "gamma_float64_shape": tf.shape(
                tf.random_gamma([4], tf.constant([0.5, 3.0], tf.float64), dtype=tf.float64)
            ),
            "leaky_relu_float64": tf.nn.leaky_relu(tf.constant([-3.0, 2.0], tf.float64)),
        }
        with tf.Session() as sess:
            got = sess.run(outs)
    return {k: np.asarray(v).tolist() for k, v in got.items()}


CASES = {
    "library_functions_of_other_dtypes": library_functions_of_other_dtypes,
    "operand_dtypes_follow_the_first_input": operand_dtypes_follow_the_first_input,
    "sampled_expected_counts_and_nce_steps": sampled_expected_counts_and_nce_steps,
    "missing_attribute_messages": missing_attribute_messages,
    "matmul_shape_errors": matmul_shape_errors,
    "unsorted_segment_sums_and_sparse_adam": unsorted_segment_sums_and_sparse_adam,
}
