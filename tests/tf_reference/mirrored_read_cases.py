"""A MirroredVariable read in cross-replica context: a Keras model built in a
MirroredStrategy's scope (one replica) under a graph seed. TF 1.15 reads each mirrored weight
through array_ops.identity of a copy (`.../Identity/ReadVariableOp`, `.../Identity`), so the
ops after it, and the op-level seeds of the next layers' initializers, follow from that. Run
on TF 1.15 by record_mirrored_read.py and on tfcluster by tests/unit/test_mirrored_read.py.
Python 3.7 code."""

from __future__ import annotations


def run(tf):
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential(
                [
                    tf.keras.layers.Dense(5, activation="relu", input_shape=(3,)),
                    tf.keras.layers.Dense(4, activation="relu"),
                    tf.keras.layers.Dense(2),
                ]
            )
        ops = [[op.name, op.type] for op in graph.get_operations()]
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            weights = sess.run([w for w in model.weights])
    return {"ops": ops, "weights": weights}
