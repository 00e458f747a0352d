"""Canned estimators' weight columns as TF 1.15's heads read them: a numeric column of shape
(1,) (its deprecated v1 protocol), cast to float under `<head>/weights/`, and checked against
the logits' shape when the step runs (per-logit weights for regression). Recorded by
record_head_weights.py; tests/unit/test_head_weights.py compares.

Python 3.7 code (the recorder runs under TF 1.15).
"""

import shutil
import tempfile

import numpy as np

try:
    from tf_reference.case_tools import error, registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True)
X = np.linspace(0, 1, 8).astype(np.float32)


def _input_fn(tf, weights, labels):
    def input_fn():
        features = {"x": X, "w": weights}
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)

    return input_fn


def _train_and_evaluate(estimator, input_fn):
    estimator.train(input_fn, max_steps=2)
    result = estimator.evaluate(input_fn, steps=1)
    return {k: float(v) for k, v in sorted(result.items()) if k != "global_step"}


def _in_model_dir(fn):
    model_dir = tempfile.mkdtemp()
    try:
        return fn(model_dir)
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


@case
def integer_weights_of_a_baseline(tf):
    def run(model_dir):
        weights = np.arange(1, 9).astype(np.int64)
        labels = (X > 0.5).astype(np.int32)
        estimator = tf.estimator.BaselineClassifier(model_dir=model_dir, weight_column="w")
        return _train_and_evaluate(estimator, _input_fn(tf, weights, labels))

    return _in_model_dir(run)


@case
def weights_of_two_columns_for_one_logit(tf):
    def run(model_dir):
        weights = np.ones([8, 2], np.float32)
        labels = (X > 0.5).astype(np.int32)
        estimator = tf.estimator.LinearClassifier(
            [tf.feature_column.numeric_column("x")],
            weight_column=tf.feature_column.numeric_column("w", shape=(2,)),
            model_dir=model_dir,
        )
        return error(lambda: estimator.train(_input_fn(tf, weights, labels), max_steps=1))

    return _in_model_dir(run)


@case
def per_logit_weights_of_a_regressor(tf):
    def run(model_dir):
        weights = np.stack([np.ones(8), np.arange(8)], 1).astype(np.float32)
        labels = np.stack([X, 2 * X], 1)
        estimator = tf.estimator.LinearRegressor(
            [tf.feature_column.numeric_column("x")],
            label_dimension=2,
            weight_column=tf.feature_column.numeric_column("w", shape=(2,)),
            model_dir=model_dir,
        )
        return _train_and_evaluate(estimator, _input_fn(tf, weights, labels))

    return _in_model_dir(run)


@case
def weight_ops_of_a_head(tf):
    features = {"x": tf.constant(X), "w": tf.constant(np.ones(8, np.float32))}
    labels = tf.constant((X > 0.5).astype(np.int32))
    estimator = tf.estimator.BaselineClassifier(weight_column="w")
    estimator.model_fn(features, labels, tf.estimator.ModeKeys.EVAL, estimator.config)
    return {
        "ops": sorted(
            op.name
            for op in tf.get_default_graph().get_operations()
            if "/weights" in op.name and "Assert" not in op.name and "assert" not in op.name
        )
    }
