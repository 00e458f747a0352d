"""Feature columns and index tables whose lookup ops move TF 1.15's op count, hence the op seeds
of every random op made after them (graph seed set, no op seed): an estimator's DNN layers made
after input_layer draw TF's initial weights only if the columns built TF's ops. Each case
builds the columns' tensors on fixed inputs, then records the op count, the (name, type) of
every op, the looked-up values and a seeded draw made right after.
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_VOCAB = ["Bachelors", "HS-grad", "Masters"]


def _count(graph: Any) -> int:
    return graph._op_count() if hasattr(graph, "_op_count") else graph._last_id


def _run(tf: Any, build: Callable[[Any], Any]) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(5)
        out = build(tf)
        count = _count(graph)
        ops = [[op.name, op.type] for op in graph.get_operations()]
        after = tf.random_normal([3], name="after")
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            value, drawn = sess.run([out, after])
    return {"op_count": count, "ops": ops, "value": value, "after": drawn}


def _features(tf: Any) -> dict[str, Any]:
    return {
        "education": tf.constant([["Masters"], ["Odd"], ["HS-grad"]]),
        "code": tf.constant([[3], [9], [1]], dtype=tf.int64),
        "age": tf.constant([[30], [41], [55]]),
    }


def _input_layer(columns: Callable[[Any, Any], list]) -> Callable[[Any], Any]:
    return lambda tf: tf.feature_column.input_layer(_features(tf), columns(tf, tf.feature_column))


def _indicator(tf: Any, fc: Any) -> list:
    return [fc.indicator_column(fc.categorical_column_with_vocabulary_list("education", _VOCAB))]


def _oov_embedding(tf: Any, fc: Any) -> list:
    education = fc.categorical_column_with_vocabulary_list("education", _VOCAB, num_oov_buckets=2)
    return [fc.embedding_column(education, 3)]


def _int_indicator(tf: Any, fc: Any) -> list:
    code = fc.categorical_column_with_vocabulary_list("code", [1, 3, 5], dtype=tf.int64)
    return [fc.indicator_column(code)]


def vocabulary_list_indicator(tf: Any) -> dict[str, Any]:
    return _run(tf, _input_layer(_indicator))


def vocabulary_list_oov_embedding(tf: Any) -> dict[str, Any]:
    return _run(tf, _input_layer(_oov_embedding))


def vocabulary_list_int_indicator(tf: Any) -> dict[str, Any]:
    return _run(tf, _input_layer(_int_indicator))


def numeric_and_vocabulary_then_dense(tf: Any) -> dict[str, Any]:
    def build(tf: Any) -> Any:
        fc = tf.feature_column
        edu = fc.categorical_column_with_vocabulary_list("education", _VOCAB)
        cols = [fc.numeric_column("age"), fc.indicator_column(edu)]
        net = fc.input_layer(_features(tf), cols)
        return tf.layers.dense(net, 2)

    return _run(tf, build)


CASES: dict[str, Callable[[Any], dict[str, Any]]] = {
    fn.__name__: fn
    for fn in (
        vocabulary_list_indicator,
        vocabulary_list_oov_embedding,
        vocabulary_list_int_indicator,
        numeric_and_vocabulary_then_dense,
    )
}
