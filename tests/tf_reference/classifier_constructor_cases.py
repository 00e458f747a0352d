"""What constructing a canned classifier does to the default graph, as TF 1.15 does it: a
classifier of more than two classes validates n_classes in the graph (a Const asserted
greater than 2, and a NoOp after the assertion), so the names it takes shift the names of a
program's own ops built after it, and a finalized default graph (a prediction generator left
suspended by a notebook's loop) refuses it with a RuntimeError. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_classifier_constructors.py and on
tfcluster by tests/unit/test_classifier_constructors.py. Python 3.7 code."""

from __future__ import annotations

import shutil
import tempfile

try:
    from tf_reference.case_tools import error, registrar
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _classifiers(tf, model_dir):
    fc = [tf.feature_column.numeric_column("x", shape=4)]
    return [
        ("linear_3", lambda: tf.estimator.LinearClassifier(fc, n_classes=3, model_dir=model_dir)),
        ("linear_2", lambda: tf.estimator.LinearClassifier(fc, model_dir=model_dir)),
        (
            "dnn_10",
            lambda: tf.estimator.DNNClassifier(
                hidden_units=[3], feature_columns=fc, n_classes=10, model_dir=model_dir
            ),
        ),
        ("regressor", lambda: tf.estimator.LinearRegressor(fc, model_dir=model_dir)),
        ("baseline_3", lambda: tf.estimator.BaselineClassifier(n_classes=3, model_dir=model_dir)),
        (
            "combined_4",
            lambda: tf.estimator.DNNLinearCombinedClassifier(
                linear_feature_columns=fc,
                dnn_feature_columns=fc,
                dnn_hidden_units=[3],
                n_classes=4,
                model_dir=model_dir,
            ),
        ),
    ]


@case
def ops_made_by_classifier_constructors(tf):
    """The ops each constructor adds to the default graph (names and types), and the name a
    program's own constant takes after them."""
    model_dir = tempfile.mkdtemp()
    try:
        graph = tf.get_default_graph()
        out = {}
        for name, make in _classifiers(tf, model_dir):
            before = len(graph.get_operations())
            make()
            out[name] = [[op.name, op.type] for op in graph.get_operations()[before:]]
        out["next_constant"] = tf.constant(1.0).name
        return out
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


@case
def classifier_made_while_a_finalized_graph_is_default(tf):
    """Each constructor under a finalized default graph: the error (class, first line) or
    None."""
    model_dir = tempfile.mkdtemp()
    try:
        graph = tf.Graph()
        graph.finalize()
        out = {}
        with graph.as_default():
            for name, make in _classifiers(tf, model_dir):
                out[name] = error(make)
        return out
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
