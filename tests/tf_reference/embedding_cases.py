"""Embeddings, sampled losses and candidate samplers, written once against the TF1 API and run
twice: by record_embeddings.py with TensorFlow, and by tests/unit/test_embeddings_reference.py
with tfcluster. Each case builds its own graph and returns plain data: outputs, gradients
(IndexedSlices as values/indices/dense_shape), the graph's op names and types, the colocation
of the gathers, errors.

Samplers draw from their own random streams (tfcluster's are not TF's Philox), so their cases
return what the test can check exactly without TF's stream: the sampled candidates with their
expected counts (the test recomputes the counts from the candidates with tfcluster's
formulas), and histograms of many draws (compared statistically).

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
# Cases TF 1.15 cannot run without crashing its process (a CHECK failure): 2.x only.
TF2_ONLY = set()


case = registrar(CASES)


def tf2_only(fn):
    TF2_ONLY.add(fn.__name__)
    return fn


def _error(fn):
    """{"error": class name, "message": its first line} of what fn raises."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def _ops(g):
    return [[op.name, op.type] for op in g.get_operations()]


def _gathers(g):
    """Where each gather runs: its name, its input's name and its colocation group."""
    out = []
    for op in g.get_operations():
        if op.type in ("GatherV2", "Gather", "ResourceGather"):
            groups = sorted(
                x.decode() if isinstance(x, bytes) else x for x in op.colocation_groups()
            )
            out.append([op.name, op.inputs[0].name, groups])
    return out


def _value(tf, sess, t, feed=None):
    """A fetched tensor, or an IndexedSlices as {values, indices, dense_shape}."""
    if t is None:
        return None
    if isinstance(t, tf.IndexedSlices):
        v = sess.run(t, feed)
        return {"values": v.values, "indices": v.indices, "dense_shape": v.dense_shape}
    return sess.run(t, feed)


def _table(seed, rows, dim=4):
    return np.random.RandomState(seed).uniform(-1.0, 1.0, (rows, dim)).astype(np.float32)


IDS = np.array([[1, 3, 9], [0, 7, 3], [5, 5, 2]], dtype=np.int64)
VOCAB = 10


# ---- embedding_lookup -----------------------------------------------------------------------
def _lookup_variables(tf, shards, strategy, ids, max_norm=None, partitioned=True):
    """A [VOCAB, 4] table made of `shards` shards (a PartitionedVariable or a list of
    variables), looked up at ids; its output, gradients of a weighted sum, names."""
    g = tf.Graph()
    with g.as_default():
        table = _table(1, VOCAB)
        if partitioned:
            emb = tf.get_variable(
                "emb",
                initializer=tf.constant(table),
                partitioner=tf.fixed_size_partitioner(shards),
            )
            variables = list(emb)
        else:
            sizes = _sizes(VOCAB, shards)
            parts = _split_rows(table, sizes, strategy)
            emb = [tf.Variable(p, name=f"shard_{i}") for i, p in enumerate(parts)]
            variables = emb
        # Fed, as a program's ids are (TF folds constant ids into static shapes).
        ids_t = tf.placeholder(tf.as_dtype(ids.dtype), ids.shape, name="ids")
        out = tf.nn.embedding_lookup(emb, ids_t, partition_strategy=strategy, max_norm=max_norm)
        weights = tf.constant(
            np.random.RandomState(2).uniform(0.5, 2.0, out.shape.as_list()).astype(np.float32)
        )
        loss = tf.reduce_sum(out * weights)
        grads = tf.gradients(loss, variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {ids_t: ids}
            return {
                "output": sess.run(out, feed),
                "output_name": out.name,
                "static_shape": out.shape.as_list(),
                "variables": [v.name for v in variables],
                "gradients": [_value(tf, sess, gr, feed) for gr in grads],
                "ops": _ops(g),
                "gathers": _gathers(g),
            }


def _sizes(total, n):
    return [total // n + (1 if i < total % n else 0) for i in range(n)]


def _split_rows(table, sizes, strategy):
    """The shards TF's strategy expects: 'div' contiguous ranges, 'mod' every n-th row."""
    n = len(sizes)
    if strategy == "mod":
        return [table[i::n] for i in range(n)]
    bounds = np.cumsum([0, *sizes])
    return [table[bounds[i] : bounds[i + 1]] for i in range(n)]


def _add_lookup_cases():
    for shards in (1, 2, 3):
        for strategy in ("mod", "div"):
            for partitioned in (True, False):
                kind = "partitioned" if partitioned else "list"
                name = f"lookup_{kind}_{shards}_shards_{strategy}"

                def run(tf, shards=shards, strategy=strategy, partitioned=partitioned):
                    return _lookup_variables(tf, shards, strategy, IDS, partitioned=partitioned)

                run.__name__ = name
                CASES[name] = run


_add_lookup_cases()


@case
def lookup_max_norm_one_tensor(tf):
    return _lookup_variables(tf, 1, "mod", IDS, max_norm=1.0)


@case
def lookup_max_norm_two_shards_div(tf):
    return _lookup_variables(tf, 2, "div", IDS, max_norm=0.8)


@case
def lookup_max_norm_three_shards_mod(tf):
    return _lookup_variables(tf, 3, "mod", IDS, max_norm=0.8)


@case
def lookup_scalar_and_vector_ids(tf):
    g = tf.Graph()
    with g.as_default():
        shards = [tf.constant(p) for p in _split_rows(_table(3, 7), _sizes(7, 2), "div")]
        scalar = tf.nn.embedding_lookup(shards, tf.constant(4, tf.int64), "div")
        vector = tf.nn.embedding_lookup(shards, tf.constant([6, 0, 3], tf.int32), "div")
        with tf.Session() as sess:
            return {
                "scalar": sess.run(scalar),
                "vector": sess.run(vector),
                "shapes": [scalar.shape.as_list(), vector.shape.as_list()],
                "ops": _ops(g),
            }


@case
def lookup_shards_of_unknown_size(tf):
    """'div' over shards whose row counts are unknown in the graph: computed at run time."""
    g = tf.Graph()
    with g.as_default():
        parts = _split_rows(_table(4, 9), _sizes(9, 3), "div")
        holders = [tf.placeholder(tf.float32, [None, 4], name=f"p{i}") for i in range(3)]
        ids = tf.placeholder(tf.int64, [None], name="ids")
        out = tf.nn.embedding_lookup(holders, ids, partition_strategy="div")
        feed = {h: p for h, p in zip(holders, parts)}
        feed[ids] = np.array([8, 0, 4, 3, 7, 2], np.int64)
        with tf.Session() as sess:
            return {
                "output": sess.run(out, feed),
                "static_shape": out.shape.as_list(),
                "ops": _ops(g),
            }


@case
def lookup_uneven_list_div(tf):
    """Shards of 4, 3 and 3 rows: the first holds the extra id."""
    g = tf.Graph()
    with g.as_default():
        table = _table(5, 10)
        shards = [tf.constant(p) for p in _split_rows(table, [4, 3, 3], "div")]
        out = tf.nn.embedding_lookup(shards, tf.constant(np.arange(10)), "div", name="lk")
        with tf.Session() as sess:
            return {"output": sess.run(out), "ops": _ops(g)}


@case
def lookup_errors(tf):
    g = tf.Graph()
    with g.as_default():
        shards = [tf.constant(_table(6, 5)), tf.constant(_table(7, 5))]
        out_of_range = tf.nn.embedding_lookup(shards, tf.constant([3, 10]), "mod")
        negative = tf.nn.embedding_lookup(shards[0], tf.constant([-1]))
        with tf.Session() as sess:
            return {
                "empty_list": _error(lambda: tf.nn.embedding_lookup([], tf.constant([0]))),
                "none": _error(lambda: tf.nn.embedding_lookup(None, tf.constant([0]))),
                "bad_strategy": _error(
                    lambda: tf.nn.embedding_lookup(shards, tf.constant([0]), "bogus")
                ),
                "out_of_range": _error(lambda: sess.run(out_of_range)),
                "negative": _error(lambda: sess.run(negative)),
                "after_errors": sess.run(tf.nn.embedding_lookup(shards, [1, 2], "mod")),
            }


# ---- embedding_lookup_sparse and safe_embedding_lookup_sparse --------------------------------
SP_INDICES = np.array([[0, 0], [0, 1], [0, 3], [1, 0], [3, 0], [3, 1]], dtype=np.int64)
SP_IDS = np.array([1, 3, 1, 9, 0, 7], dtype=np.int64)
SP_WEIGHTS = np.array([2.0, 0.5, 1.0, 3.0, 1.5, 0.25], dtype=np.float32)
SP_SHAPE = np.array([4, 4], dtype=np.int64)


def _params(tf, shards, strategy):
    table = _table(8, VOCAB)
    if shards == 1:
        v = tf.Variable(table, name="emb")
        return v, [v]
    parts = _split_rows(table, _sizes(VOCAB, shards), strategy)
    vs = [tf.Variable(p, name=f"emb_{i}") for i, p in enumerate(parts)]
    return vs, vs


def _sparse_lookup(tf, combiner, weighted, shards, strategy, max_norm=None):
    g = tf.Graph()
    with g.as_default():
        params, variables = _params(tf, shards, strategy)
        sp_ids = tf.sparse_placeholder(tf.int64, SP_SHAPE, name="sp_ids")
        sp_w = tf.sparse_placeholder(tf.float32, SP_SHAPE, name="sp_w") if weighted else None
        feed = {sp_ids: tf.SparseTensorValue(SP_INDICES, SP_IDS, SP_SHAPE)}
        if weighted:
            feed[sp_w] = tf.SparseTensorValue(SP_INDICES, SP_WEIGHTS, SP_SHAPE)
        out = tf.nn.embedding_lookup_sparse(
            params, sp_ids, sp_w, partition_strategy=strategy, combiner=combiner, max_norm=max_norm
        )
        loss = tf.reduce_sum(out * tf.constant(np.arange(1, 17, dtype=np.float32).reshape(4, 4)))
        grads = tf.gradients(loss, variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {
                "output": sess.run(out, feed),
                "output_name": out.name,
                "static_shape": out.shape.as_list() if out.shape.ndims is not None else None,
                "gradients": [_value(tf, sess, gr, feed) for gr in grads],
                "ops": _ops(g),
            }


def _add_sparse_cases():
    for combiner in ("sum", "mean", "sqrtn"):
        for weighted in (False, True):
            for shards, strategy in ((1, "mod"), (2, "mod"), (3, "div")):
                kind = "weighted" if weighted else "unweighted"
                name = f"sparse_{combiner}_{kind}_{shards}_shards_{strategy}"

                def run(tf, c=combiner, w=weighted, s=shards, st=strategy):
                    return _sparse_lookup(tf, c, w, s, st)

                run.__name__ = name
                CASES[name] = run


_add_sparse_cases()


@case
def sparse_max_norm(tf):
    return _sparse_lookup(tf, "mean", True, 2, "div", max_norm=0.5)


@case
def sparse_default_combiner_and_errors(tf):
    g = tf.Graph()
    with g.as_default():
        params = tf.constant(_table(9, VOCAB))
        sp_ids = tf.SparseTensor(SP_INDICES, SP_IDS, SP_SHAPE)
        sp_w = tf.SparseTensor(SP_INDICES, SP_WEIGHTS, SP_SHAPE)
        out = tf.nn.embedding_lookup_sparse(params, sp_ids, None)
        with tf.Session() as sess:
            return {
                "default_mean": sess.run(out),
                "bad_combiner": _error(
                    lambda: tf.nn.embedding_lookup_sparse(params, sp_ids, sp_w, combiner="max")
                ),
                "dense_ids": _error(
                    lambda: tf.nn.embedding_lookup_sparse(params, tf.constant(SP_IDS), None)
                ),
                "dense_weights": _error(
                    lambda: tf.nn.embedding_lookup_sparse(params, sp_ids, tf.constant(SP_WEIGHTS))
                ),
            }


# Ids with invalid entries: -1 ids, a zero and a negative weight, an empty row (2), rank 3.
SAFE_INDICES = np.array(
    [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]],
    dtype=np.int64,
)
SAFE_IDS = np.array([1, -1, 4, 8, 2, 6, 0], dtype=np.int64)
SAFE_WEIGHTS = np.array([1.0, 2.0, 0.0, 1.5, -1.0, 0.5, 2.0], dtype=np.float32)
SAFE_SHAPE = np.array([2, 3, 2], dtype=np.int64)


def _safe_lookup(tf, combiner, weighted, default_id, shards, strategy="div"):
    g = tf.Graph()
    with g.as_default():
        params, variables = _params(tf, shards, strategy)
        sp_ids = tf.sparse_placeholder(tf.int64, [None, None, None], name="sp_ids")
        sp_w = (
            tf.sparse_placeholder(tf.float32, [None, None, None], name="sp_w") if weighted else None
        )
        feed = {sp_ids: tf.SparseTensorValue(SAFE_INDICES, SAFE_IDS, SAFE_SHAPE)}
        if weighted:
            feed[sp_w] = tf.SparseTensorValue(SAFE_INDICES, SAFE_WEIGHTS, SAFE_SHAPE)
        out = tf.nn.safe_embedding_lookup_sparse(
            params,
            sp_ids,
            sp_w,
            combiner=combiner,
            default_id=default_id,
            partition_strategy=strategy,
        )
        loss = tf.reduce_sum(out * out)
        grads = tf.gradients(loss, variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {
                "output": sess.run(out, feed),
                "output_name": out.name,
                "static_shape": out.shape.as_list() if out.shape.ndims is not None else None,
                "gradients": [_value(tf, sess, gr, feed) for gr in grads],
                "ops": _ops(g),
            }


def _add_safe_cases():
    for combiner in ("sum", "mean", "sqrtn"):
        for weighted in (False, True):
            for default_id in (None, 3):
                for shards in (1, 2):
                    kind = "weighted" if weighted else "unweighted"
                    name = f"safe_{combiner}_{kind}_default_{default_id}_{shards}_shards"

                    def run(tf, c=combiner, w=weighted, d=default_id, s=shards):
                        return _safe_lookup(tf, c, w, d, s)

                    run.__name__ = name
                    CASES[name] = run


_add_safe_cases()


@case
def safe_lookup_errors(tf):
    g = tf.Graph()
    with g.as_default():
        sp_ids = tf.SparseTensor(SAFE_INDICES, SAFE_IDS, SAFE_SHAPE)
        return {
            "none": _error(lambda: tf.nn.safe_embedding_lookup_sparse(None, sp_ids)),
            "empty": _error(lambda: tf.nn.safe_embedding_lookup_sparse([], sp_ids)),
        }


# ---- nce_loss and sampled_softmax_loss with fixed samples -------------------------------------
NUM_CLASSES = 12
DIM = 5
BATCH = 4


def _sampled_values(tf, num_true, sampled):
    """Fixed candidates and expected counts: the losses become deterministic."""
    true_count = np.random.RandomState(11).uniform(0.05, 0.9, (BATCH, num_true)).astype(np.float32)
    sampled_count = np.random.RandomState(12).uniform(0.05, 0.9, len(sampled)).astype(np.float32)
    return (
        tf.constant(np.array(sampled, np.int64)),
        tf.constant(true_count),
        tf.constant(sampled_count),
    )


def _sampled_loss(tf, which, num_true, shards, strategy, remove_hits):
    g = tf.Graph()
    with g.as_default():
        w_table = _table(13, NUM_CLASSES, DIM)
        b_table = np.random.RandomState(14).uniform(-0.5, 0.5, NUM_CLASSES).astype(np.float32)
        if shards == 1:
            weights = tf.Variable(w_table, name="w")
            w_vars = [weights]
        else:
            weights = tf.get_variable(
                "w",
                initializer=tf.constant(w_table),
                partitioner=tf.fixed_size_partitioner(shards),
            )
            w_vars = list(weights)
        biases = tf.Variable(b_table, name="b")
        inputs = tf.Variable(_table(15, BATCH, DIM), name="inputs")
        label_values = np.array([[2, 7], [0, 11], [5, 5], [9, 1]], np.int64)[:, :num_true]
        labels = tf.placeholder(tf.int64, [BATCH, num_true], name="labels")
        feed = {labels: label_values}
        # Class 7 is sampled twice and is a label of row 0; 0 and 9 are labels too.
        sampled = [7, 3, 0, 7, 10, 9]
        values = _sampled_values(tf, num_true, sampled)
        fn = tf.nn.nce_loss if which == "nce" else tf.nn.sampled_softmax_loss
        loss = fn(
            weights=weights,
            biases=biases,
            labels=labels,
            inputs=inputs,
            num_sampled=len(sampled),
            num_classes=NUM_CLASSES,
            num_true=num_true,
            sampled_values=values,
            remove_accidental_hits=remove_hits,
            partition_strategy=strategy,
        )
        total = tf.reduce_sum(loss * tf.constant([1.0, 2.0, 0.5, 1.5]))
        variables = [*w_vars, biases, inputs]
        grads = tf.gradients(total, variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {
                "loss": sess.run(loss, feed),
                "loss_name": loss.name,
                "static_shape": loss.shape.as_list() if loss.shape.ndims is not None else None,
                "variables": [v.name for v in variables],
                "gradients": [_value(tf, sess, gr, feed) for gr in grads],
                "ops": _ops(g),
            }


def _add_loss_cases():
    for which in ("nce", "sampled_softmax"):
        for num_true in (1, 2):
            for remove_hits in (False, True):
                for shards, strategy in ((1, "mod"), (2, "mod"), (3, "div")):
                    hits = "remove_hits" if remove_hits else "keep_hits"
                    name = f"{which}_true{num_true}_{hits}_{shards}_shards_{strategy}"

                    def run(tf, a=which, b=num_true, c=shards, d=strategy, e=remove_hits):
                        return _sampled_loss(tf, a, b, c, d, e)

                    run.__name__ = name
                    CASES[name] = run


_add_loss_cases()


@case
def nce_with_its_own_sampler(tf):
    """Without sampled_values: a LogUniformCandidateSampler inside the loss (names, shapes)."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        weights = tf.Variable(_table(16, 50, 3), name="w")
        biases = tf.Variable(np.zeros(50, np.float32), name="b")
        inputs = tf.constant(_table(17, 8, 3))
        labels = tf.constant(np.arange(8, dtype=np.int32).reshape(8, 1))
        nce = tf.nn.nce_loss(weights, biases, labels, inputs, 10, 50)
        ssm = tf.nn.sampled_softmax_loss(weights, biases, labels, inputs, 10, 50)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run([nce, ssm])
            return {
                "shapes": [list(a.shape), list(b.shape)],
                "dtypes": [str(a.dtype), str(b.dtype)],
                "finite": bool(np.all(np.isfinite(a)) and np.all(np.isfinite(b))),
                "ops": _ops(g),
            }


# ---- candidate samplers -------------------------------------------------------------------
TRUE = np.array([[0, 3], [7, 19], [1, 1]], dtype=np.int64)


def _samplers(tf, true, num_sampled, unique, seed, vocab_file=None):
    """name -> the sampler's output tensors."""
    r = tf.random
    out = {
        "uniform": r.uniform_candidate_sampler(true, 2, num_sampled, unique, 20, seed=seed),
        "log_uniform": r.log_uniform_candidate_sampler(true, 2, num_sampled, unique, 20, seed=seed),
        "learned_unigram": r.learned_unigram_candidate_sampler(
            true, 2, num_sampled, unique, 20, seed=seed
        ),
        "fixed_unigram": r.fixed_unigram_candidate_sampler(
            true, 2, num_sampled, unique, 20, unigrams=list(UNIGRAMS[:20]), seed=seed
        ),
        "fixed_unigram_distorted": r.fixed_unigram_candidate_sampler(
            true,
            2,
            num_sampled,
            unique,
            22,
            distortion=0.75,
            num_reserved_ids=2,
            unigrams=list(UNIGRAMS[2:]),
            seed=seed,
        ),
        "fixed_unigram_shard": r.fixed_unigram_candidate_sampler(
            true % 7,
            2,
            num_sampled,
            unique,
            9,
            distortion=0.5,
            num_reserved_ids=3,
            num_shards=3,
            shard=1,
            unigrams=list(UNIGRAMS),
            seed=seed,
        ),
    }
    if vocab_file is not None:
        out["fixed_unigram_file"] = r.fixed_unigram_candidate_sampler(
            true, 2, num_sampled, unique, 20, vocab_file=vocab_file, distortion=0.6, seed=seed
        )
    return out


UNIGRAMS = [float(x) for x in [5, 1, 3, 0, 8, 2, 2, 9, 1, 4, 6, 3, 1, 1, 7, 2, 5, 3, 2, 1, 4, 4]]


def vocab_file_text():
    return "".join(f"w{i},x,{w:g}\n" for i, w in enumerate(UNIGRAMS[:20]))


def _vocab_file():
    path = os.path.join(tempfile.mkdtemp(), "vocab.csv")
    with open(path, "w") as f:
        f.write(vocab_file_text())
    return path


def _sampler_runs(tf, unique, num_sampled, runs):
    g = tf.Graph()
    with g.as_default():
        outs = _samplers(tf, tf.constant(TRUE), num_sampled, unique, 7, _vocab_file())
        with tf.Session() as sess:
            results = {}
            for name, o in sorted(outs.items()):
                results[name] = []
                for _ in range(runs):
                    s, t, c = sess.run(o)
                    results[name].append(
                        {"sampled": s, "true_expected_count": t, "sampled_expected_count": c}
                    )
            shapes = {
                name: [
                    o[i].shape.as_list() if o[i].shape.ndims is not None else None for i in range(3)
                ]
                for name, o in outs.items()
            }
            return {"runs": results, "shapes": shapes, "ops": _ops(g)}


@case
def sampler_expected_counts_with_repeats(tf):
    """unique=False: counts are p * num_sampled (learned_unigram learns between runs)."""
    return _sampler_runs(tf, False, 6, 3)


@case
def sampler_expected_counts_unique(tf):
    """unique=True: counts are 1 - (1 - p)^num_tries for the draws it took."""
    return _sampler_runs(tf, True, 5, 3)


def _histogram(tf, sampler, unique, range_max, runs, **kwargs):
    """How often each class came up in `runs` runs of tf.random.<sampler> (seeded)."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        true = tf.constant(np.array([[2], [5]], np.int64))
        n = 4 if unique else 50
        out = getattr(tf.random, sampler)(true, 1, n, unique, range_max, **kwargs)
        counts = np.zeros(range_max, np.int64)
        with tf.Session() as sess:
            for _ in range(runs):
                counts += np.bincount(sess.run(out[0]), minlength=range_max)
        return counts


@case
def sampler_histograms(tf):
    """How often each class is drawn over many runs (unique=False and True)."""
    out = {}
    for unique in (False, True):
        tag = "unique" if unique else "repeats"
        out["log_uniform_" + tag] = _histogram(tf, "log_uniform_candidate_sampler", unique, 30, 400)
        out["uniform_" + tag] = _histogram(tf, "uniform_candidate_sampler", unique, 30, 400)
        out["fixed_unigram_" + tag] = _histogram(
            tf,
            "fixed_unigram_candidate_sampler",
            unique,
            22,
            400,
            distortion=0.8,
            num_reserved_ids=1,
            unigrams=UNIGRAMS[1:],
        )
        out["learned_unigram_" + tag] = _histogram(
            tf, "learned_unigram_candidate_sampler", unique, 30, 400
        )
    return out


@case
def all_candidate_sampler_and_accidental_hits(tf):
    g = tf.Graph()
    with g.as_default():
        true = tf.constant(np.array([[1, 4], [6, 2], [4, 4]], np.int64))
        allc = tf.nn.all_candidate_sampler(true, 2, 8, True)
        sampled = tf.constant(np.array([4, 0, 6, 4, 9], np.int64))
        hits = tf.nn.compute_accidental_hits(true, sampled, 2)
        with tf.Session() as sess:
            return {
                "all": list(sess.run(allc)),
                "hits": list(sess.run(hits)),
                "hit_shapes": [h.shape.as_list() for h in hits],
                "ops": _ops(g),
            }


@case
def sampler_errors(tf):
    g = tf.Graph()
    with g.as_default():
        r = tf.random
        true = tf.constant(TRUE)
        too_many = r.uniform_candidate_sampler(true, 2, 25, True, 20)
        wrong_cols = r.log_uniform_candidate_sampler(
            tf.placeholder(tf.int64, [None, None]), 2, 3, False, 20
        )
        hits_bad = tf.nn.compute_accidental_hits(
            tf.placeholder(tf.int64), tf.constant([1, 2], tf.int64), 2
        )
        with tf.Session() as sess:
            return {
                "int32_classes": _error(
                    lambda: r.uniform_candidate_sampler(tf.constant([[1]]), 1, 2, True, 5)
                ),
                "rank1_classes": _error(
                    lambda: r.uniform_candidate_sampler(tf.constant([1], tf.int64), 1, 2, True, 5)
                ),
                "wrong_num_true": _error(lambda: r.uniform_candidate_sampler(true, 3, 2, True, 5)),
                "zero_sampled": _error(lambda: r.uniform_candidate_sampler(true, 2, 0, True, 5)),
                "zero_range": _error(lambda: r.log_uniform_candidate_sampler(true, 2, 1, True, 0)),
                "range_too_small": _error(lambda: sess.run(too_many)),
                "wrong_columns_at_run": _error(
                    lambda: sess.run(wrong_cols, {"Placeholder:0": np.zeros((2, 3), np.int64)})
                ),
                "hits_rank1": _error(
                    lambda: sess.run(hits_bad, {"Placeholder_1:0": np.array([1, 2], np.int64)})
                ),
                "after_errors": sess.run(r.uniform_candidate_sampler(true, 2, 3, True, 20))[
                    0
                ].shape,
            }


@case
@tf2_only
def fixed_unigram_errors(tf):
    """TF 1.15 aborts its process on these (CHECK failures); 2.x gives errors."""
    g = tf.Graph()
    with g.as_default():
        r = tf.random
        true = tf.constant(np.array([[1]], np.int64))
        wrong_range = r.fixed_unigram_candidate_sampler(true, 1, 2, False, 5, unigrams=[1.0] * 4)
        neither = r.fixed_unigram_candidate_sampler(true, 1, 2, False, 5)
        missing = r.fixed_unigram_candidate_sampler(
            true, 1, 2, False, 5, vocab_file="/nonexistent/vocab.csv"
        )
        with tf.Session() as sess:
            return {
                "wrong_range": _error(lambda: sess.run(wrong_range)),
                "neither": _error(lambda: sess.run(neither)),
                "missing_file": _error(lambda: sess.run(missing)),
                "class_out_of_range": _error(
                    lambda: sess.run(r.uniform_candidate_sampler(true * 9, 1, 2, False, 5))
                ),
            }
