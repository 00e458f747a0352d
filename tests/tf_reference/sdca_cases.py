"""Programs for the SDCA ops (tf.train.sdca_optimizer / sdca_fprint / sdca_shrink_l1, the raw
ops SdcaOptimizer / SdcaOptimizerV2) and LinearSDCA: each case builds a graph with `tf`
(TensorFlow 1.15 when recorded by record_sdca_kmeans.py, tfcluster in
tests/unit/test_sdca_reference.py) and returns what it computes.

TF's SDCA pass visits the examples of a batch in a random order (or adaptive sampling's), so
only passes whose result does not depend on the order are compared: one example, or examples
whose features do not overlap. The estimators train on batches of one example for that reason.
Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import os
import shutil
import tempfile

import numpy as np

LOSSES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss")
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sdca_kmeans")


def _is_tf(tf):
    return not tf.__name__.startswith("tfcluster")


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class name is what is compared
        return {"error": type(e).__name__}
    return {"error": None}


def _run(tf, fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def _label(loss, positive):
    if loss == "squared_loss":
        return 0.7 if positive else -1.3
    if loss == "poisson_loss":
        return 3.0 if positive else 0.0
    return 1.0 if positive else 0.0


def _one_example(tf, loss, adaptive, l1=0.25, partitions=1, inner=1, positive=True, v1=True):
    """One example with two sparse groups (one with values) and a dense group."""
    args = dict(
        sparse_example_indices=[np.array([0, 0], np.int64), np.array([0], np.int64)],
        sparse_feature_indices=[np.array([1, 3], np.int64), np.array([0], np.int64)],
        sparse_feature_values=[np.array([0.5, -2.0], np.float32)],
        dense_features=[np.array([[1.0, 2.0, -1.0]], np.float32)],
        example_weights=np.array([2.0], np.float32),
        example_labels=np.array([_label(loss, positive)], np.float32),
        sparse_indices=[np.array([1, 3], np.int64), np.array([0], np.int64)],
        sparse_weights=[np.array([0.3, -0.4], np.float32), np.array([0.1], np.float32)],
        dense_weights=[np.array([0.1, -0.2, 0.4], np.float32)],
        example_state_data=np.array([[0.05, 0.0, 0.0, 0.0]], np.float32)
        if loss in ("squared_loss", "poisson_loss")
        else np.zeros((1, 4), np.float32),
        loss_type=loss,
        l1=l1,
        l2=2.0,
        num_loss_partitions=partitions,
        num_inner_iterations=inner,
    )
    if v1:
        out = tf.train.sdca_optimizer(adaptative=adaptive, **args)
    else:
        out = tf.raw_ops.SdcaOptimizerV2(adaptive=adaptive, **args)
    state, sparse, dense = _run(tf, [out[0], list(out[1]), list(out[2])])
    return {
        "state": state,
        "sparse": sparse,
        "dense": dense,
        "shapes": [out[0].shape.as_list()]
        + [t.shape.as_list() for t in list(out[1]) + list(out[2])],
        "dtypes": [out[0].dtype.name] + [t.dtype.name for t in list(out[1]) + list(out[2])],
    }


def _disjoint_batch(tf, loss, adaptive=False):
    """Three examples whose sparse and dense features do not overlap: any visiting order
    gives the same pass."""
    labels = np.array([_label(loss, True), _label(loss, False), _label(loss, True)], np.float32)
    state = np.zeros((3, 4), np.float32)
    if loss in ("squared_loss", "poisson_loss"):
        state[:, 0] = [0.1, -0.2, 0.05]
    out = tf.train.sdca_optimizer(
        sparse_example_indices=[np.array([0, 1, 1, 2], np.int64), np.array([2], np.int64)],
        sparse_feature_indices=[np.array([0, 1, 2, 3], np.int64), np.array([5], np.int64)],
        sparse_feature_values=[np.array([1.0, 0.5, -1.5, 2.0], np.float32)],
        dense_features=[np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, -1.0]], np.float32)],
        example_weights=np.array([1.0, 2.0, 0.5], np.float32),
        example_labels=labels,
        sparse_indices=[np.array([0, 1, 2, 3], np.int64), np.array([5], np.int64)],
        sparse_weights=[np.array([0.1, 0.2, -0.3, 0.0], np.float32), np.array([0.7], np.float32)],
        dense_weights=[np.array([0.0, 0.5, -0.5], np.float32)],
        example_state_data=state,
        loss_type=loss,
        l1=0.0,
        l2=1.0,
        num_loss_partitions=1,
        num_inner_iterations=1,
        adaptative=adaptive,
    )
    state, sparse, dense = _run(tf, [out[0], list(out[1]), list(out[2])])
    return {"state": state, "sparse": sparse, "dense": dense}


def _make_one_example_case(loss, adaptive, **kw):
    return lambda tf: _one_example(tf, loss, adaptive, **kw)


def _make_disjoint_case(loss):
    return lambda tf: _disjoint_batch(tf, loss)


def sdca_inner_iterations_and_partitions(tf):
    return {
        "inner3": _one_example(tf, "squared_loss", False, inner=3)["state"],
        "partitions2": _one_example(tf, "logistic_loss", False, partitions=2)["state"],
        "partitions2_dense": _one_example(tf, "smooth_hinge_loss", False, partitions=2)["dense"],
        "negative_label": _one_example(tf, "hinge_loss", False, positive=False)["state"],
        "v2_poisson": _one_example(tf, "poisson_loss", True, v1=False)["state"],
    }


def sdca_fprint_values(tf):
    ids = ["", "a", "abc", "example_1", "x" * 100, "\u00e9t\u00e9".encode("utf-8")]
    fp = tf.train.sdca_fprint(ids)
    raw = tf.raw_ops.SdcaFprint(input=tf.constant(["id-7", "id-8"]))
    with tf.Session() as sess:
        a, b = sess.run([fp, raw])
    return {"fprint": a, "raw": b, "shape": fp.shape.as_list(), "dtype": fp.dtype.name}


def sdca_shrink_l1_weights(tf):
    w1 = tf.Variable([0.5, -0.1, 0.2, -0.9], name="w1")
    w2 = tf.Variable([[1.0, -0.24], [0.0, 0.3]], name="w2")
    shrink = tf.train.sdca_shrink_l1([w1, w2], l1=0.5, l2=2.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(shrink)
        return {"w1": sess.run(w1), "w2": sess.run(w2), "type": shrink.type}


def _bad_args(**over):
    args = dict(
        sparse_example_indices=[np.array([0], np.int64)],
        sparse_feature_indices=[np.array([1], np.int64)],
        sparse_feature_values=[],
        dense_features=[np.array([[1.0, 2.0]], np.float32)],
        example_weights=np.array([1.0], np.float32),
        example_labels=np.array([1.0], np.float32),
        sparse_indices=[np.array([1], np.int64)],
        sparse_weights=[np.array([0.0], np.float32)],
        dense_weights=[np.array([0.0, 0.0], np.float32)],
        example_state_data=np.zeros((1, 4), np.float32),
        loss_type="logistic_loss",
        l1=0.0,
        l2=1.0,
        num_loss_partitions=1,
        num_inner_iterations=1,
    )
    args.update(over)
    return args


BAD_INPUTS = {
    "logistic_label": dict(example_labels=np.array([0.5], np.float32)),
    "poisson_negative": dict(loss_type="poisson_loss", example_labels=np.array([-1.0], np.float32)),
    "out_of_range_feature": dict(sparse_feature_indices=[np.array([4], np.int64)]),
    "duplicate_feature": dict(
        sparse_example_indices=[np.array([0, 0], np.int64)],
        sparse_feature_indices=[np.array([1, 1], np.int64)],
    ),
    "state_shape": dict(example_state_data=np.zeros((2, 4), np.float32)),
    "state_rank": dict(example_state_data=np.zeros((4,), np.float32)),
    "label_count": dict(example_labels=np.array([1.0, 0.0], np.float32)),
    "dense_rank": dict(dense_features=[np.array([1.0, 2.0], np.float32)]),
    "too_many_dense": dict(dense_features=[np.ones((1, 3), np.float32)]),
    "no_features": dict(
        sparse_example_indices=[],
        sparse_feature_indices=[],
        sparse_indices=[],
        sparse_weights=[],
        dense_features=[],
        dense_weights=[],
    ),
    "unknown_loss": dict(loss_type="absolute_loss"),
    "list_lengths": dict(sparse_indices=[]),
    "not_a_list": dict(dense_features=np.ones((1, 2), np.float32)),
}


def bad_run(tf, name):
    args = _bad_args(**BAD_INPUTS[name])

    def run():
        out = tf.train.sdca_optimizer(**args)
        with tf.Session() as sess:
            sess.run(out[0])

    return _error(run)


def run_isolated(tf, module_file, name, run_here):
    """run_here() on tfcluster; under TensorFlow, `python module_file name` in a fresh
    process (its last line: the error class name or None): some bad inputs abort TF 1.15's
    process (a CHECK failure), recorded as "aborted" (where tfcluster raises
    InvalidArgumentError)."""
    if not _is_tf(tf):
        return run_here()
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, os.path.abspath(module_file), name],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=os.path.dirname(os.path.abspath(module_file)),
    )
    lines = proc.stdout.decode().split()
    if proc.returncode != 0 or not lines:
        return {"error": "aborted"}
    return {"error": None if lines[-1] == "None" else lines[-1]}


def _bad_run_isolated(tf, name):
    return run_isolated(tf, __file__, name, lambda: bad_run(tf, name))


def sdca_bad_inputs(tf):
    # Not here (TF 1.15 reads out of bounds; tfcluster raises InvalidArgumentError, see
    # tests/unit/test_sdca_reference.py): example and feature index vectors of different
    # lengths.
    out = {name: _bad_run_isolated(tf, name) for name in sorted(BAD_INPUTS)}
    out["fprint_matrix"] = _error(lambda: tf.train.sdca_fprint([["a", "b"]]))
    out["fprint_fed_matrix"] = _fprint_fed_matrix(tf)
    return out


def _fprint_fed_matrix(tf):
    p = tf.placeholder(tf.string)
    fp = tf.train.sdca_fprint(p)

    def run():
        with tf.Session() as sess:
            sess.run(fp, {p: [["a"]]})

    return _error(run)


# ---- LinearSDCA in the canned linear estimators -------------------------------------------

_X = np.array([[1.0], [2.0], [-1.0], [0.5], [1.5], [-0.5]], np.float32)
_CAT = np.array([["a"], ["b"], ["a"], ["c"], ["d"], ["b"]])
_IDS = np.array(["e0", "e1", "e2", "e3", "e4", "e5"])
_CLASS = np.array([[1], [0], [1], [0], [1], [0]], np.int64)
_REG = np.array([[1.5], [-0.5], [2.0], [0.25], [1.0], [-1.0]], np.float32)
_W = np.array([[1.0], [2.0], [0.5], [1.0], [1.5], [1.0]], np.float32)


def _model_dir(tf, name):
    if _is_tf(tf):
        path = os.path.join(DATA_DIR, "tf", name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path
    return tempfile.mkdtemp(prefix="sdca_" + name)


def _features(tf, labels):
    # One example per step (SDCA's pass is then the same in any order), in a fixed order.
    data = {"x": _X, "c": _CAT, "id": _IDS, "w": _W}

    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices((data, labels))
        return ds.repeat().batch(1)

    def eval_fn():
        return tf.data.Dataset.from_tensor_slices((data, labels)).batch(6)

    def predict_fn():
        return tf.data.Dataset.from_tensor_slices(data).batch(6)

    return input_fn, eval_fn, predict_fn


def _columns(tf):
    fx = tf.feature_column.numeric_column("x")
    fc = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])
    return [fx, fc]


def _estimator_result(est, eval_fn, predict_fn, keys):
    metrics = est.evaluate(eval_fn, steps=1)
    preds = list(est.predict(predict_fn))
    names = sorted(est.get_variable_names())
    return {
        "metrics": {k: np.asarray(v) for k, v in sorted(metrics.items())},
        "predictions": {k: np.stack([p[k] for p in preds]) for k in keys},
        "variable_names": names,
        "variables": {
            n: np.asarray(est.get_variable_value(n)) for n in names if "ShardedMutable" not in n
        },
    }


def linear_classifier_sdca(tf):
    tf.logging.set_verbosity(tf.logging.ERROR)
    opt = tf.estimator.experimental.LinearSDCA(
        example_id_column="id", symmetric_l1_regularization=0.05, symmetric_l2_regularization=2.0
    )
    est = tf.estimator.LinearClassifier(
        _columns(tf), model_dir=_model_dir(tf, "classifier"), optimizer=opt, weight_column="w"
    )
    input_fn, eval_fn, predict_fn = _features(tf, _CLASS)
    est.train(input_fn, steps=9)
    return _estimator_result(est, eval_fn, predict_fn, ["logits", "probabilities", "class_ids"])


def linear_regressor_sdca(tf):
    tf.logging.set_verbosity(tf.logging.ERROR)
    opt = tf.estimator.experimental.LinearSDCA(
        example_id_column="id", symmetric_l2_regularization=1.5
    )
    est = tf.estimator.LinearRegressor(
        _columns(tf), model_dir=_model_dir(tf, "regressor"), optimizer=opt
    )
    input_fn, eval_fn, predict_fn = _features(tf, _REG)
    est.train(input_fn, steps=8)
    return _estimator_result(est, eval_fn, predict_fn, ["predictions"])


def classifier_estimator(tf, model_dir):
    opt = tf.estimator.experimental.LinearSDCA(
        example_id_column="id", symmetric_l1_regularization=0.05, symmetric_l2_regularization=2.0
    )
    return tf.estimator.LinearClassifier(
        _columns(tf), model_dir=model_dir, optimizer=opt, weight_column="w"
    )


def linear_classifier_sdca_restores_tfcluster_checkpoint(tf):
    """Predictions from the checkpoint tfcluster wrote (write_sdca_kmeans_samples.py): TF's
    when recorded, tfcluster's in the test."""
    tf.logging.set_verbosity(tf.logging.ERROR)
    src = os.path.join(DATA_DIR, "tfcluster", "classifier")
    model_dir = tempfile.mkdtemp(prefix="sdca_restore")
    shutil.rmtree(model_dir)
    shutil.copytree(src, model_dir)
    est = classifier_estimator(tf, model_dir)
    _, eval_fn, predict_fn = _features(tf, _CLASS)
    out = {
        "logits": np.stack([p["logits"] for p in est.predict(predict_fn)]),
        "metrics": {k: np.asarray(v) for k, v in sorted(est.evaluate(eval_fn, steps=1).items())},
    }
    shutil.rmtree(model_dir, ignore_errors=True)
    return out


def linear_classifier_sdca_restores_tf_checkpoint(tf):
    """Predictions and a further training step from the checkpoint TF 1.15 wrote (the
    example-state table included)."""
    tf.logging.set_verbosity(tf.logging.ERROR)
    src = os.path.join(DATA_DIR, "tf", "classifier")
    model_dir = tempfile.mkdtemp(prefix="sdca_restore")
    shutil.rmtree(model_dir)
    shutil.copytree(src, model_dir)
    opt = tf.estimator.experimental.LinearSDCA(
        example_id_column="id", symmetric_l1_regularization=0.05, symmetric_l2_regularization=2.0
    )
    est = tf.estimator.LinearClassifier(
        _columns(tf), model_dir=model_dir, optimizer=opt, weight_column="w"
    )
    input_fn, eval_fn, predict_fn = _features(tf, _CLASS)
    before = np.stack([p["logits"] for p in est.predict(predict_fn)])
    table = est.get_variable_value("ShardedMutableHashTable-1-of-1-values")
    est.train(input_fn, steps=3)
    after = _estimator_result(est, eval_fn, predict_fn, ["logits"])
    shutil.rmtree(model_dir, ignore_errors=True)
    return {
        "logits_before": before,
        # The table's entries (its bucket order is the hash's): rows with a non-zero weight.
        "table_rows": np.array(sorted(r.tolist() for r in table if r[3] != 0), np.float32),
        "after": after,
    }


def linear_sdca_bad_uses(tf):
    opt = tf.estimator.experimental.LinearSDCA(example_id_column="id")
    cols = _columns(tf)
    return {
        "multiclass": _error(
            lambda: tf.estimator.LinearClassifier(cols, n_classes=3, optimizer=opt)
        ),
        "combiner": _error(
            lambda: tf.estimator.LinearClassifier(cols, optimizer=opt, sparse_combiner="mean")
        ),
        "label_dimension": _error(
            lambda: tf.estimator.LinearRegressor(cols, label_dimension=2, optimizer=opt)
        ),
    }


CASES = {
    "sdca_fprint_values": sdca_fprint_values,
    "sdca_shrink_l1_weights": sdca_shrink_l1_weights,
    "sdca_bad_inputs": sdca_bad_inputs,
    "sdca_inner_iterations_and_partitions": sdca_inner_iterations_and_partitions,
    "linear_classifier_sdca": linear_classifier_sdca,
    "linear_regressor_sdca": linear_regressor_sdca,
    "linear_sdca_bad_uses": linear_sdca_bad_uses,
}
for _loss in LOSSES:
    for _adaptive in (False, True):
        CASES[f"sdca_one_example_{_loss}_{'adaptive' if _adaptive else 'shuffled'}"] = (
            _make_one_example_case(_loss, _adaptive)
        )
    CASES[f"sdca_disjoint_batch_{_loss}"] = _make_disjoint_case(_loss)

# Runs after linear_classifier_sdca wrote TF's checkpoint (cases run in sorted order).
RESTORE_CASES = {
    "linear_classifier_sdca_restores_tf_checkpoint": linear_classifier_sdca_restores_tf_checkpoint,
    "linear_classifier_sdca_restores_tfcluster_checkpoint": (
        linear_classifier_sdca_restores_tfcluster_checkpoint
    ),
}


if __name__ == "__main__":  # one bad input, in its own TensorFlow process
    import sys

    import tensorflow as _tf

    print(bad_run(_tf, sys.argv[1])["error"])
