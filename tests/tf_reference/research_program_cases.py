"""Behaviours that TF1 research programs (a key-value memory that replaces its oldest slots,
found with tf.nn.top_k(..., sorted=False); a model that passes keep_prob=0.3 to dropout) showed
apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_research_program.py and on tfcluster by tests/unit/test_research_program.py.
Python 3.7 code."""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import LoggedWarnings, run_script
except ImportError:
    from case_tools import LoggedWarnings, run_script


def _top_k_inputs():
    """(name, array, k) rows: random values, many ties, ascending and descending runs, NaNs,
    integers, a batch of matrices; k from 2 to one less than the row."""
    rng = np.random.RandomState(7)
    rows = []
    for n, k in [(5, 2), (8, 3), (40, 4), (40, 39), (100, 7), (1000, 16), (300, 50)]:
        rows.append((f"random_{n}_{k}", rng.randn(3, n).astype(np.float32), k))
        rows.append((f"ties_{n}_{k}", rng.randint(0, 4, size=(3, n)).astype(np.float32), k))
        rows.append((f"ascending_{n}_{k}", np.arange(n, dtype=np.float32)[None], k))
        rows.append((f"descending_{n}_{k}", np.arange(n, 0, -1, dtype=np.float32)[None], k))
    nan = rng.randn(2, 20).astype(np.float32)
    nan[0, 3] = np.nan
    nan[1, [0, 7, 12]] = np.nan
    rows.append(("nan_20_5", nan, 5))
    rows.append(("int32_30_6", rng.randint(-5, 5, size=(2, 30)).astype(np.int32), 6))
    rows.append(("float64_batch_of_matrices", rng.randn(2, 3, 12), 4))
    # An age vector plus uniform noise, its k oldest slots taken unsorted (a memory's update).
    rows.append(("noisy_ages_40_4", (rng.uniform(-8, 8, size=40)).astype(np.float32), 4))
    return rows


def top_k_unsorted_order(tf):
    """tf.nn.top_k(x, k, sorted=False) on CPU: which k indices and in which order (TF's bounded
    heap's layout), and their values; sorted=True and k of 1 or the whole row beside it."""
    out = {}
    with tf.Graph().as_default():
        fetches = {}
        for name, x, k in _top_k_inputs():
            t = tf.constant(x)
            fetches[name] = tf.nn.top_k(t, k, sorted=False)
            fetches[name + "/sorted"] = tf.nn.top_k(t, k, sorted=True)
        x = np.array([[3.0, 1.0, 3.0, 2.0, 0.5, 2.0]], np.float32)
        fetches["k_1_unsorted"] = tf.nn.top_k(x, 1, sorted=False)
        fetches["k_whole_row_unsorted"] = tf.nn.top_k(x, 6, sorted=False)
        with tf.Session() as sess:
            got = sess.run(fetches)
    for name, result in got.items():
        values = np.asarray(result.values)
        out[name] = {
            "indices": np.asarray(result.indices).tolist(),
            "values": [None if v != v else float(v) for v in values.astype(np.float64).ravel()],
        }
    return out


_LARGE_RATE_PROGRAM = """import logging
IMPORT_TF
logging.getLogger("tensorflow").setLevel(logging.WARNING)
x = tf.ones([2, 3])
tf.layers.dropout(x, rate=0.8, training=True)
tf.nn.dropout(x, rate=tf.constant(0.9))
tf.nn.dropout(x, rate=0.5)
tf.nn.dropout(x, keep_prob=tf.constant(0.2))
for _ in range(6):
    tf.nn.dropout(x, keep_prob=0.3)
print("built")
"""


def large_dropout_rate_warnings(tf):
    """The warnings dropout logs for a rate above 0.5 given as a Python number (a layer's rate,
    or 1 - keep_prob; never for a tensor): the first five such calls of a process, each with
    its rate. Run as a program of its own (the count is per process)."""
    tf_import = "import tensorflow as tf"
    if "tfcluster" in tf.__name__:  # the tfcluster under test, whatever the process's path
        package_dir = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
        tf_import = f"import sys\nsys.path.insert(0, {package_dir!r})\nimport tfcluster as tf"
    done = run_script(_LARGE_RATE_PROGRAM.replace("IMPORT_TF", tf_import), "large_rate")
    lines = [line for line in done.stderr.splitlines() if "dropout rate" in line]
    return {"rc": done.returncode, "stdout": done.stdout.splitlines(), "warnings": lines}


def _multi_output_ops(tf):
    x = tf.constant([3, 1, 3, 2])
    f = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    image = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    true_classes = tf.constant([[1], [2]], tf.int64)
    return {
        "top_k": tf.nn.top_k(f, 1),
        "math_top_k": tf.math.top_k(f, 2, sorted=False),
        "unique": tf.unique(x),
        "unique_int64": tf.unique(x, out_idx=tf.int64),
        "unique_with_counts": tf.unique_with_counts(x),
        "setdiff1d": tf.setdiff1d(x, [1]),
        "qr": tf.linalg.qr(f),
        "max_pool_with_argmax": tf.nn.max_pool_with_argmax(
            image, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"
        ),
        "lu": tf.linalg.lu(f),
        "uniform_candidate_sampler": tf.nn.uniform_candidate_sampler(
            true_classes, 1, 3, True, 10, seed=1
        ),
        "log_uniform_candidate_sampler": tf.nn.log_uniform_candidate_sampler(
            true_classes, 1, 3, True, 10, seed=1
        ),
        "learned_unigram_candidate_sampler": tf.nn.learned_unigram_candidate_sampler(
            true_classes, 1, 3, True, 10, seed=1
        ),
        "fixed_unigram_candidate_sampler": tf.nn.fixed_unigram_candidate_sampler(
            true_classes, 1, 3, True, 10, unigrams=[1.0] * 10, seed=1
        ),
        "all_candidate_sampler": tf.nn.all_candidate_sampler(true_classes, 1, 3, True, seed=1),
        "random_uniform_candidate_sampler": tf.random.uniform_candidate_sampler(
            true_classes, 1, 3, True, 10, seed=1
        ),
        "compute_accidental_hits": tf.nn.compute_accidental_hits(
            true_classes, tf.constant([1, 2, 3], tf.int64), 1
        ),
    }


def multi_output_results_as_namedtuples(tf):
    """What top_k, unique, unique_with_counts, setdiff1d, qr, lu, max_pool_with_argmax, the
    candidate samplers and compute_accidental_hits return (TF's namedtuples, named as their
    ops) and what Session.run gives back for them (the same namedtuple of arrays): type names,
    fields, and the fetched values' types."""
    out = {}
    with tf.Graph().as_default():
        results = _multi_output_ops(tf)
        with tf.Session() as sess:
            fetched = sess.run(results)
    for name, result in sorted(results.items()):
        got = fetched[name]
        out[name] = {
            "type": type(result).__name__,
            "fields": list(getattr(result, "_fields", [])),
            "run_type": type(got).__name__,
            "run_fields": list(getattr(got, "_fields", [])),
            "run_items": [type(v).__name__ for v in got],
        }
    return out


def tensor_in_a_variables_collection_on_export(tf):
    """A tensor in a collection whose items TF writes as VariableDefs (a Supervisor puts the
    tensor "global_step:0" in GLOBAL_STEP when the program's global step variable is not in
    it): export_meta_graph, and the Supervisor's own export, log "Issue encountered when
    serializing <key>" with the AttributeError and leave the collection out; a plain
    collection of tensors is kept as names."""
    logdir = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default() as graph, LoggedWarnings() as logged:
            tf.get_variable("global_step", initializer=0, trainable=False)
            step = graph.get_tensor_by_name("global_step:0")
            tf.add_to_collection("my_tensors", step)
            tf.add_to_collection(tf.GraphKeys.TRAINABLE_VARIABLES, step)
            exported = tf.train.export_meta_graph()
            first = [m for m in logged.messages if m.startswith("Issue")]
            tf.get_default_graph().clear_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
            tf.train.Supervisor(logdir=logdir)
            by_supervisor = [m for m in logged.messages if m.startswith("Issue")][len(first) :]
            kept = [type(x).__name__ for x in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)]
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    return {
        "warnings": first,
        "collections": sorted(exported.collection_def.keys()),
        "my_tensors": list(exported.collection_def["my_tensors"].node_list.value),
        "supervisor_warnings": by_supervisor,
        "global_step_collection": kept,
    }


def products_with_negative_zeros(tf):
    """tf.matmul where every product is -0 (positive rows times a matrix of -0, or their
    transposes): TF's sgemm adds to a zeroed accumulator, so the outputs are +0 (they printed
    as "-0." on tfcluster for 2 to 8 output columns); and the gradient of zero-initialized
    weights through a product whose incoming gradient is -0 (a spatial transformer's
    localisation layer). The signs of the zeros, and the arrays as numpy prints them."""
    rng = np.random.RandomState(3)
    shapes = [(2, 2, 2), (1, 5, 3), (5, 5, 1), (20, 54, 6), (54, 20, 6), (3, 1, 4), (64, 64, 64)]
    out = {}
    with tf.Graph().as_default():
        fetches = {}
        for m, k, n in shapes:
            a = (rng.rand(m, k) + 0.1).astype(np.float32)
            b = np.full((k, n), -0.0, np.float32)
            key = f"{m}x{k}x{n}"
            fetches[key] = tf.matmul(a, b)
            fetches[key + "/transposed"] = tf.matmul(a.T.copy(), b.T.copy(), True, True)
        h = tf.constant((rng.rand(6, 4) + 0.1).astype(np.float32))
        w = tf.Variable(tf.zeros([4, 3]))
        y = tf.matmul(h, w)
        loss = tf.reduce_sum(y * (tf.zeros_like(y) * -1.0))
        fetches["zero_weights_gradient"] = tf.gradients(loss, [w])[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(fetches)
    for key, value in sorted(got.items()):
        out[key] = {"negative_zeros": int(np.signbit(value).sum()), "size": int(value.size)}
    out["printed_gradient"] = str(got["zero_weights_gradient"])
    return out


def weight_decay_of_large_weights(tf):
    """tf.nn.l2_loss of weights past 65536 values (a dense 6272x384, a 3x3x64x128 kernel) as
    a weight decay term sums them: float32 sums close to TF's blocked Eigen sum."""
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    losses = {}
    for shape in [(6272, 384), (3, 3, 64, 128), (70000,), (1000, 100)]:
        x = tf.constant((rng.randn(*shape) * 0.05).astype(np.float32))
        losses["x".join(str(d) for d in shape)] = tf.nn.l2_loss(x)
    with tf.Session() as sess:
        return {k: float(v) for k, v in sorted(sess.run(losses).items())}


CASES = {
    "weight_decay_of_large_weights": weight_decay_of_large_weights,
    "top_k_unsorted_order": top_k_unsorted_order,
    "large_dropout_rate_warnings": large_dropout_rate_warnings,
    "multi_output_results_as_namedtuples": multi_output_results_as_namedtuples,
    "tensor_in_a_variables_collection_on_export": tensor_in_a_variables_collection_on_export,
    "products_with_negative_zeros": products_with_negative_zeros,
}
