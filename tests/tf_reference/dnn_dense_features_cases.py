"""The input layer TF 1.15's canned DNN estimators build over v2 feature columns (all of
tf.feature_column's but shared_embedding_columns): Keras's DenseFeatures, which makes every
column's state first (embedding_weights as resource variables, in order of the columns'
names) and only then the columns' tensors, so the op count after it, the later op seeds and
the losses are TF's. Each case records the input layer's ops (name relative to the layer,
type), the global variables (name, kind) and a few training losses with a graph seed set;
tf.keras.layers.DenseFeatures alone records its op count and a seeded draw after it.
The linear estimators' LinearModel over v2 columns (resource variables made first) too.
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

_INPUT_LAYER = "dnn/input_from_feature_columns/input_layer/"


def _features(tf: Any) -> dict[str, Any]:
    return {
        "age": tf.constant([10.0, 30.0, 50.0, 25.0]),
        "color": tf.constant([["r"], ["g"], ["b"], ["r"]]),
        "word": tf.constant([["a"], ["bb"], ["c"], ["d"]]),
        "n": tf.constant([[0], [1], [3], [2]], dtype=tf.int64),
        "n_weight": tf.constant([[0.5], [2.0], [1.0], [3.0]]),
    }


def _labels(tf: Any, regression: bool = False) -> Any:
    if regression:
        return tf.constant([[1.0], [-2.0], [0.5], [3.0]])
    return tf.constant([[0], [1], [1], [0]], dtype=tf.int64)


def _columns(fc: Any) -> list[Any]:
    """Numeric, bucketized, indicators of a vocabulary list, a hash bucket, an identity and
    a cross, and embeddings of them (mean, sqrtn, sum combiners)."""
    age = fc.numeric_column("age")
    age_buckets = fc.bucketized_column(age, [20.0, 40.0])
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
    word = fc.categorical_column_with_hash_bucket("word", 7)
    n = fc.categorical_column_with_identity("n", 4)
    cross = fc.crossed_column(["color", age_buckets], 5)
    return [
        age,
        age_buckets,
        fc.indicator_column(color),
        fc.indicator_column(word),
        fc.indicator_column(n),
        fc.embedding_column(color, 3),
        fc.embedding_column(word, 2, combiner="sqrtn"),
        fc.embedding_column(n, 2, combiner="sum"),
        fc.indicator_column(cross),
        fc.embedding_column(cross, 2),
    ]


def _weighted_columns(fc: Any) -> list[Any]:
    n = fc.weighted_categorical_column(fc.categorical_column_with_identity("n", 4), "n_weight")
    return [fc.numeric_column("age"), fc.indicator_column(n), fc.embedding_column(n, 3)]


def _shared_columns(fc: Any) -> list[Any]:
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
    word = fc.categorical_column_with_vocabulary_list("word", ["a", "bb", "c"])
    return fc.shared_embedding_columns([color, word], 2)


def _in_cond(name: str) -> bool:
    """An op of a cond (an identity column's assert guard, a zero-weight count): TF 1.15 makes
    v1 Switch/Merge ops there, tfcluster one If op (counted as TF's ops)."""
    return "/AssertGuard" in name or re.search(r"/zero_count(_\d+)?(/|$)", name) is not None


def _variables(tf: Any) -> list[str]:
    """Each global variable as 'name kind' (ResourceVariable or RefVariable), in creation
    order."""
    return [
        f"{v.name} {'ResourceVariable' if 'Resource' in type(v).__name__ else 'RefVariable'}"
        for v in tf.global_variables()
    ]


def _train(
    tf: Any,
    make: Callable[[Any, str], Any],
    regression: bool = False,
    with_ops: bool = True,
    scope: tuple[str, ...] = (_INPUT_LAYER,),
) -> dict[str, Any]:
    """The estimator's TRAIN graph from its model_fn (graph seed 7): the input layer's ops,
    the variables, the model variables and three steps' losses (the global step made first, as
    Estimator.train does)."""
    model_dir = tempfile.mkdtemp()
    try:
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(7)
            tf.train.get_or_create_global_step()
            est = make(tf, model_dir)
            spec = est.model_fn(
                _features(tf), _labels(tf, regression), tf.estimator.ModeKeys.TRAIN, est.config
            )
            ops = [
                f"{op.name[len(scope[0]) :] if len(scope) == 1 else op.name} {op.type}"
                for op in graph.get_operations()
                if op.name.startswith(scope) and not _in_cond(op.name)
            ]
            variables = _variables(tf)
            model_variables = [v.name for v in tf.model_variables()]
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
                losses = [float(sess.run([spec.loss, spec.train_op])[0]) for _ in range(3)]
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    result = {
        "variables": variables,
        "model_variables": model_variables,
        "losses": np.array(losses, np.float32),
    }
    if with_ops:
        result["ops"] = ops
    return result


def dnn_classifier_columns(tf: Any) -> dict[str, Any]:
    return _train(
        tf,
        lambda tf, d: tf.estimator.DNNClassifier([5, 3], _columns(tf.feature_column), model_dir=d),
    )


def dnn_regressor_weighted_column(tf: Any) -> dict[str, Any]:
    return _train(
        tf,
        lambda tf, d: tf.estimator.DNNRegressor(
            [4], _weighted_columns(tf.feature_column), model_dir=d
        ),
        regression=True,
    )


def dnn_linear_combined_classifier_columns(tf: Any) -> dict[str, Any]:
    def make(tf: Any, d: str) -> Any:
        fc = tf.feature_column
        color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
        return tf.estimator.DNNLinearCombinedClassifier(
            model_dir=d,
            linear_feature_columns=[color, fc.numeric_column("age")],
            dnn_feature_columns=_columns(fc),
            dnn_hidden_units=[4, 3],
        )

    # Its DNN part's input layer is dnn_classifier_columns' (ops not recorded twice).
    return _train(tf, make, with_ops=False)


def linear_classifier_columns(tf: Any) -> dict[str, Any]:
    """LinearClassifier over v2 columns builds TF 1.15's LinearModel: every weight first
    (resource variables), then the weighted sums under linear_model/linear_model/linear_model/."""

    def make(tf: Any, d: str) -> Any:
        fc = tf.feature_column
        age = fc.numeric_column("age")
        color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
        n = fc.categorical_column_with_identity("n", 4)
        columns = [age, fc.bucketized_column(age, [20.0]), color, fc.indicator_column(n)]
        return tf.estimator.LinearClassifier(columns, model_dir=d)

    # The model's ops and its summaries' (its variables are compared by name and kind).
    scope = (
        "linear/linear_model/linear_model/",
        "linear/ReadVariableOp",
        "linear/strided_slice",
        "linear/bias",
        "linear/zero_fraction/",
        "linear/fraction_of_zero_weights",
    )
    return _train(tf, make, scope=scope)


def dnn_classifier_shared_embeddings(tf: Any) -> dict[str, Any]:
    """A shared embedding column is a v1 column: the input layer stays input_layer's (ref
    variables made column by column)."""
    return _train(
        tf,
        lambda tf, d: tf.estimator.DNNClassifier(
            [3], _shared_columns(tf.feature_column), model_dir=d
        ),
    )


def dense_features_layer(tf: Any) -> dict[str, Any]:
    """tf.keras.layers.DenseFeatures called twice (its variables made once), then a seeded
    draw: its op count is TF's (its ops are those of the estimators' cases)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        layer = tf.keras.layers.DenseFeatures(_columns(tf.feature_column))
        out = layer(_features(tf))
        again = layer(_features(tf))
        count = graph._op_count() if hasattr(graph, "_op_count") else graph._last_id
        after = tf.random_normal([3], name="after")
        variables = _variables(tf)
        weights = [v.name for v in layer.trainable_weights]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            value, value_again, drawn = sess.run([out, again, after])
    assert np.array_equal(value, value_again)
    return {
        "op_count": count,
        "variables": variables,
        "trainable_weights": weights,
        "value": value,
        "after": drawn,
    }


def dense_features_refuses_shared_embeddings(tf: Any) -> dict[str, Any]:
    """tf.keras.layers.DenseFeatures takes v2 columns only: a shared embedding column (v1)
    is refused when the layer is made."""
    try:
        tf.keras.layers.DenseFeatures(_shared_columns(tf.feature_column))
    except Exception as e:  # the error's class is what is compared
        return {"error": type(e).__name__}
    return {"error": None}


CASES: dict[str, Callable[[Any], dict[str, Any]]] = {
    fn.__name__: fn
    for fn in (
        dnn_classifier_columns,
        dnn_regressor_weighted_column,
        dnn_linear_combined_classifier_columns,
        linear_classifier_columns,
        dnn_classifier_shared_embeddings,
        dense_features_layer,
        dense_features_refuses_shared_embeddings,
    )
}
