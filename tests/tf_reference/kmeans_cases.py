"""Programs for the clustering ops (NearestNeighbors, KmeansPlusPlusInitialization,
KMC2ChainInitialization), TF's k-means graph and tf.estimator.experimental.KMeans: each case
builds a graph with `tf` (TensorFlow 1.15 when recorded by record_sdca_kmeans.py, tfcluster in
tests/unit/test_kmeans_reference.py) and returns what it computes.

The seeded initializations (random points, k-means++, k-MC2) draw from TF's Philox streams,
so they choose TF's points. Mini-batch k-means in TF 1.15 races with itself (a step's count
update may run before or after the same step reads the counts), so its cases run several
times under TF and record every distinct answer (`answers`); tfcluster's must be one of them.
Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import os
import shutil
import tempfile

import numpy as np

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sdca_kmeans")
# How often a racy TF program is run to collect its possible answers.
RACY_RUNS = 8


def _is_tf(tf):
    return not tf.__name__.startswith("tfcluster")


def _ops(tf):
    if _is_tf(tf):
        from tensorflow.python.ops import gen_clustering_ops

        return gen_clustering_ops
    from tfcluster.ops import clustering_ops

    return clustering_ops


def _graph_kmeans(tf):
    if _is_tf(tf):
        from tensorflow.python.ops import clustering_ops

        return clustering_ops.KMeans
    from tfcluster.lib.estimator.kmeans_graph import KMeans

    return KMeans


def _shape(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class name is what is compared
        return {"error": type(e).__name__}
    return {"error": None}


def _points():
    rng = np.random.RandomState(3)
    return np.concatenate(
        [
            rng.randn(10, 2) + np.array([4, 4]),
            rng.randn(10, 2) - np.array([4, 0]),
            rng.randn(10, 2) * 0.5,
        ]
    ).astype(np.float32)


def nearest_neighbors_values(tf):
    ops = _ops(tf)
    pts = _points()
    centers = np.array([[4.0, 4.0], [-4.0, 0.0], [0.0, 0.0], [4.0, 4.0]], np.float32)
    out = {}
    for k in (1, 2, 3, 7, 0):
        idx, dist = ops.nearest_neighbors(pts, centers, k)
        with tf.Session() as sess:
            i, d = sess.run([idx, dist])
        out[f"k{k}"] = {
            "indices": i,
            "distances": d,
            "shapes": [_shape(idx), _shape(dist)],
            "dtypes": [idx.dtype.name, dist.dtype.name],
        }
    return out


def kmeans_plus_plus_values(tf):
    ops = _ops(tf)
    pts = _points()
    out = {}
    for retries in (0, 2, -1):
        for seed in (1, 7):
            t = ops.kmeans_plus_plus_initialization(pts, 4, seed, retries)
            with tf.Session() as sess:
                out[f"retries{retries}_seed{seed}"] = sess.run(t)
    out["shape"] = _shape(t)
    t = ops.kmeans_plus_plus_initialization(pts, 30, 3, 1)
    with tf.Session() as sess:
        out["all_points"] = sess.run(t)
    return out


def kmc2_chain_values(tf):
    ops = _ops(tf)
    distances = np.array([0.5, 2.0, 0.1, 3.0, 0.0, 7.5, 1.0, 0.2, 4.0], np.float32)
    out = {}
    for seed in (0, 1, 2, 3, 11, 12345):
        t = ops.kmc2_chain_initialization(distances, seed)
        with tf.Session() as sess:
            out[f"seed{seed}"] = np.asarray(sess.run(t))
    out["shape"] = _shape(t)
    out["dtype"] = t.dtype.name
    return out


def _bad_inputs(tf):
    """name -> (graph builder, feed) of each misuse."""
    ops = _ops(tf)
    p = tf.placeholder(tf.float32)
    c = tf.placeholder(tf.float32)
    k = tf.placeholder(tf.int64)
    pts = _points()
    return {
        "nn_points_vector": (lambda: ops.nearest_neighbors(p, c, 1)[0], {p: [1.0], c: pts}),
        "nn_dims": (lambda: ops.nearest_neighbors(p, c, 1)[0], {p: pts, c: [[1.0, 2.0, 3.0]]}),
        "nn_negative_k": (lambda: ops.nearest_neighbors(p, c, k)[0], {p: pts, c: pts, k: -1}),
        "nn_no_points": (lambda: ops.nearest_neighbors(p, c, 1)[0], {p: np.zeros((0, 2)), c: pts}),
        "kpp_too_many": (lambda: ops.kmeans_plus_plus_initialization(p, k, 1, 0), {p: pts, k: 31}),
        "kpp_zero": (lambda: ops.kmeans_plus_plus_initialization(p, k, 1, 0), {p: pts, k: 0}),
        "kpp_vector": (lambda: ops.kmeans_plus_plus_initialization(p, 1, 1, 0), {p: [1.0]}),
        "kmc2_empty": (lambda: ops.kmc2_chain_initialization(p, 1), {p: np.zeros(0)}),
        "kmc2_matrix": (lambda: ops.kmc2_chain_initialization(p, 1), {p: [[1.0]]}),
    }


BAD_INPUTS = (
    "kmc2_empty",
    "kmc2_matrix",
    "kpp_too_many",
    "kpp_vector",
    "kpp_zero",
    "nn_dims",
    "nn_negative_k",
    "nn_no_points",
    "nn_points_vector",
)


def bad_run(tf, name):
    build, feed = _bad_inputs(tf)[name]

    def go():
        with tf.Session() as sess:
            sess.run(build(), feed)

    return _error(go)


def clustering_bad_inputs(tf):
    try:
        from sdca_cases import run_isolated
    except ImportError:  # imported as tf_reference.kmeans_cases by the tests
        from tf_reference.sdca_cases import run_isolated

    out = {}
    for name in BAD_INPUTS:
        tf.reset_default_graph()
        out[name] = run_isolated(tf, __file__, name, lambda name=name: bad_run(tf, name))
    out["static_rank"] = _error(lambda: _ops(tf).nearest_neighbors([1.0, 2.0], _points(), 1))
    return out


def _train_graph(tf, init, metric, mini_batch, steps, steps_per_iteration=1, chain=200):
    """TF's k-means graph (in a new graph), trained `steps` steps after its init op ran to
    completion."""
    tf.reset_default_graph()
    tf.set_random_seed(1)
    pts = _points()
    km = _graph_kmeans(tf)(
        tf.constant(pts),
        3,
        initial_clusters=init,
        distance_metric=metric,
        use_mini_batch=mini_batch,
        mini_batch_steps_per_iteration=steps_per_iteration,
        random_seed=4,
        kmc2_chain_length=chain,
    )
    all_scores, idx, scores, initialized, init_op, train = km.training_graph()
    names = sorted(v.op.name for v in tf.global_variables())
    centers = next(v for v in tf.global_variables() if v.op.name == "clusters")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        runs = 0
        while not sess.run(initialized):
            sess.run(init_op)
            runs += 1
        first = sess.run(centers)
        for _ in range(steps):
            sess.run(train)
        final = sess.run([centers, all_scores[0], scores[0], idx[0]])
    return {
        "variable_names": names,
        "init_runs": runs,
        "initial_centers": first,
        "centers": final[0],
        "all_scores": final[1],
        "scores": final[2],
        "cluster_idx": final[3],
    }


def graph_full_batch_given_centers(tf):
    init = _points()[[0, 10, 20]]
    return {
        "squared_euclidean": _train_graph(tf, init, "squared_euclidean", False, 3),
        "cosine": _train_graph(tf, init, "cosine", False, 3),
    }


def graph_full_batch_seeded_inits(tf):
    return {
        "kmeans_plus_plus": _train_graph(tf, "kmeans_plus_plus", "squared_euclidean", False, 2),
        "kmeans_plus_plus_cosine": _train_graph(tf, "kmeans_plus_plus", "cosine", False, 2),
        "random": _train_graph(tf, "random", "squared_euclidean", False, 2),
    }


def graph_kmc2(tf):
    """k-MC2 seeding, one chain per 10 points of the batch: TF 1.15's loop iterations each
    assign the centers and may run in either order, so its runs give several answers."""

    def build():
        r = _train_graph(tf, "kmc2", "squared_euclidean", False, 1, chain=10)
        return {"initial_centers": r["initial_centers"], "centers": r["centers"]}

    return {"answers": _racy(tf, build)}


def _racy(tf, build):
    """Every distinct answer of a program TF 1.15 computes with a race, over RACY_RUNS runs
    (one run on tfcluster, which has no race)."""
    answers = []
    for _ in range(RACY_RUNS if _is_tf(tf) else 1):
        tf.reset_default_graph()
        tf.set_random_seed(1)
        got = build()
        if not any(_same(got, a) for a in answers):
            answers.append(got)
    return answers


def _same(a, b):
    return all(np.allclose(a[k], b[k], rtol=1e-5, atol=1e-6) for k in a)


def graph_mini_batch(tf):
    init = _points()[[0, 10, 20]]

    def build(metric, per):
        r = _train_graph(tf, init, metric, True, 3, steps_per_iteration=per)
        return {"centers": r["centers"], "scores": r["scores"]}

    names = {}
    for metric, per in (("squared_euclidean", 1), ("cosine", 1), ("squared_euclidean", 2)):
        names[f"{metric}_{per}"] = _train_graph(tf, init, metric, True, 0, per)["variable_names"]
    out = {
        f"{m}_{p}": {"answers": _racy(tf, lambda m=m, p=p: build(m, p))}
        for m, p in (("squared_euclidean", 1), ("cosine", 1), ("squared_euclidean", 2))
    }
    out["variable_names"] = names
    return out


# ---- tf.estimator.experimental.KMeans ----------------------------------------------------


def _model_dir(tf, name):
    if _is_tf(tf):
        path = os.path.join(DATA_DIR, "tf", name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path
    return tempfile.mkdtemp(prefix="kmeans_" + name)


def _estimator_run(tf, name, **kw):
    tf.logging.set_verbosity(tf.logging.ERROR)
    pts = _points()

    def train_fn():
        return tf.constant(pts), None

    def once():
        return tf.train.limit_epochs(tf.constant(pts), num_epochs=1)

    km = tf.estimator.experimental.KMeans(3, model_dir=_model_dir(tf, name), seed=5, **kw)
    km.train(train_fn, steps=3)
    names = sorted(km.get_variable_names())
    return {
        "centers": km.cluster_centers(),
        "score": np.asarray(km.score(once)),
        "cluster_index": np.array(list(km.predict_cluster_index(once))),
        "transform": np.stack(list(km.transform(once))),
        "variable_names": names,
        "global_step": np.asarray(km.get_variable_value("global_step")),
    }


def kmeans_estimator_full_batch(tf):
    init = _points()[[0, 10, 20]]
    return {
        "given_squared_euclidean": _estimator_run(
            tf, "given", initial_clusters=init, use_mini_batch=False
        ),
        "given_cosine": _estimator_run(
            tf,
            "given_cosine",
            initial_clusters=init,
            distance_metric="cosine",
            use_mini_batch=False,
        ),
        "kmeans_plus_plus": _estimator_run(
            tf, "kmeans_plus_plus", initial_clusters="kmeans_plus_plus", use_mini_batch=False
        ),
        "random": _estimator_run(tf, "random", use_mini_batch=False),
        "feature_columns": _estimator_features(tf),
    }


def _estimator_features(tf):
    """Points from a features dict through feature columns (input_layer)."""
    tf.logging.set_verbosity(tf.logging.ERROR)
    pts = _points()
    cols = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")]

    def train_fn():
        return {"a": tf.constant(pts[:, :1]), "b": tf.constant(pts[:, 1:])}, None

    km = tf.estimator.experimental.KMeans(
        2,
        model_dir=_model_dir(tf, "features"),
        initial_clusters=pts[:2],
        use_mini_batch=False,
        feature_columns=cols,
    )
    km.train(train_fn, steps=2)
    return {"centers": km.cluster_centers()}


def kmeans_estimator_mini_batch(tf):
    """Mini-batch k-means in the estimator: its variables and steps. (TF 1.15's centers race
    here too, and its runs rarely take the order without the race; the unit test checks
    the estimator's centers against graph_mini_batch's, which are checked against TF's.)"""
    r = _estimator_run(tf, "mini_batch", initial_clusters=_points()[[0, 10, 20]])
    return {"variable_names": r["variable_names"], "global_step": r["global_step"]}


def kmeans_estimator_bad_uses(tf):
    km = tf.estimator.experimental.KMeans
    return {
        "init": _error(lambda: km(3, initial_clusters="kmc2")),
        "metric": _error(lambda: km(3, distance_metric="manhattan")),
        "graph_init": _error(lambda: _graph_kmeans(tf)(tf.constant(_points()), 3, "fancy")),
    }


def given_kmeans(tf, model_dir):
    return tf.estimator.experimental.KMeans(
        3, model_dir=model_dir, initial_clusters=_points()[[0, 10, 20]], use_mini_batch=False
    )


def kmeans_estimator_restores_tf_checkpoint(tf):
    """Predictions and scores from the model directory TF 1.15 trained (restore only)."""
    return _restore(tf, "tf")


def kmeans_estimator_restores_tfcluster_checkpoint(tf):
    """The same from the model directory tfcluster trained (write_sdca_kmeans_samples.py):
    TF's answers when recorded, tfcluster's in the test."""
    return _restore(tf, "tfcluster")


def _restore(tf, writer):
    tf.logging.set_verbosity(tf.logging.ERROR)
    pts = _points()
    src = os.path.join(DATA_DIR, writer, "given")
    model_dir = tempfile.mkdtemp(prefix="kmeans_restore")
    shutil.rmtree(model_dir)
    shutil.copytree(src, model_dir)

    def once():
        return tf.train.limit_epochs(tf.constant(pts), num_epochs=1)

    km = given_kmeans(tf, model_dir)
    out = {
        "centers": km.cluster_centers(),
        "cluster_index": np.array(list(km.predict_cluster_index(once))),
        "score": np.asarray(km.score(once)),
    }
    shutil.rmtree(model_dir, ignore_errors=True)
    return out


CASES = {
    "nearest_neighbors_values": nearest_neighbors_values,
    "kmeans_plus_plus_values": kmeans_plus_plus_values,
    "kmc2_chain_values": kmc2_chain_values,
    "clustering_bad_inputs": clustering_bad_inputs,
    "graph_full_batch_given_centers": graph_full_batch_given_centers,
    "graph_full_batch_seeded_inits": graph_full_batch_seeded_inits,
    "graph_kmc2": graph_kmc2,
    "graph_mini_batch": graph_mini_batch,
    "kmeans_estimator_full_batch": kmeans_estimator_full_batch,
    "kmeans_estimator_mini_batch": kmeans_estimator_mini_batch,
    "kmeans_estimator_bad_uses": kmeans_estimator_bad_uses,
}
# Run after kmeans_estimator_full_batch wrote TF's model directories (sorted order after it).
RESTORE_CASES = {
    "kmeans_estimator_restores_tf_checkpoint": kmeans_estimator_restores_tf_checkpoint,
    "kmeans_estimator_restores_tfcluster_checkpoint": (
        kmeans_estimator_restores_tfcluster_checkpoint
    ),
}


if __name__ == "__main__":  # one bad input, in its own TensorFlow process
    import sys

    import tensorflow as _tf

    print(bad_run(_tf, sys.argv[1])["error"])
