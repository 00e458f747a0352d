"""tf.keras.experimental.SequenceFeatures as TF 1.15 builds it: its ops' names (each column's
tensors in a name scope named after the column, inside the layer's; the lengths checked
under `assert_all_equal`), the error naming them when sequence lengths differ, and a seeded
draw made after it (the op count before it is TF's). Recorded by
record_sequence_features_names.py; tests/unit/test_sequence_features_names.py compares.

Python 3.7 code (the recorder runs under TF 1.15).
"""

try:
    from tf_reference.case_tools import error, registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=7)


def _layer_and_features(tf, numbers_rows):
    fc = tf.feature_column
    ids = fc.sequence_categorical_column_with_identity("ids", num_buckets=5)
    emb = fc.embedding_column(ids, dimension=3, initializer=tf.constant_initializer(0.5))
    num = fc.sequence_numeric_column("v")
    features = {
        "ids": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 2, 3], tf.int64), [2, 3]),
        "v": tf.SparseTensor(numbers_rows, [1.0, 2.0, 3.0], [2, 3]),
    }
    return tf.keras.experimental.SequenceFeatures([emb, num]), features


def _scoped_names(tf, scope):
    return sorted(
        op.name
        for op in tf.get_default_graph().get_operations()
        if op.name.startswith(scope)
        and "AssertGuard" not in op.name  # TF1 cond frames here, an If in tfcluster
    )


@case
def names_and_a_later_seeded_draw(tf):
    layer, features = _layer_and_features(tf, [[0, 0], [0, 1], [1, 0]])
    out, length = layer(features)
    draw = tf.random_normal([3])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([out, length, draw])
    return {
        "variables": [v.name for v in layer.weights],
        "length_ops": _scoped_names(tf, "sequence_features/ids_embedding/sequence_length"),
        "assert_ops": _scoped_names(tf, "sequence_features/assert_all_equal"),
        "output": values[0].tolist(),
        "length": values[1].tolist(),
        "draw": values[2].tolist(),
    }


@case
def lengths_that_differ(tf):
    layer, features = _layer_and_features(tf, [[0, 0], [1, 0], [1, 1]])
    _, length = layer(features)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return error(lambda: sess.run(length))
