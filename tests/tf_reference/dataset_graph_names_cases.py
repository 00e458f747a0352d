"""tf.data programs whose graphs must hold TF 1.15's ops, named as TF names them: the
normalize_element/component_<i> constants of from_tensors / from_tensor_slices, and the
seed2 Select TF builds for a seeded shuffle (its ops move the op seeds of every random op
made after it, so a variable initialized after a shuffle starts from TF's values). Each case
builds a graph with `tf` (TensorFlow 1.15 when recorded by record_dataset_graph_names.py,
tfcluster in tests/unit/test_dataset_graph_names.py). Python 3.7 code."""

import numpy as np


def _ops(tf):
    return [[op.name, op.type] for op in tf.get_default_graph().get_operations()]


def shuffled_slices_then_a_variable(tf):
    ds = tf.data.Dataset.from_tensor_slices((np.arange(6.0, dtype=np.float32), [1, 2, 3, 4, 5, 6]))
    ds = ds.shuffle(10).batch(2)
    ds.make_initializable_iterator()
    tf.data.Dataset.range(4).shuffle(3, seed=7)
    tf.data.Dataset.from_tensors([1.0, 2.0])
    w = tf.get_variable("w", [4], initializer=tf.random_normal_initializer())
    with tf.Session() as sess:
        sess.run(w.initializer)
        return {"ops": _ops(tf), "w": sess.run(w)}


def shuffle_without_any_seed(tf):
    with tf.Graph().as_default():
        tf.data.Dataset.range(4).shuffle(3)
        return {"ops": _ops(tf)}


def shuffle_with_zero_seeds_yields_every_element(tf):
    tf.reset_default_graph()
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        it = tf.data.Dataset.range(5).shuffle(5, seed=0).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            return {"sorted": sorted(int(sess.run(it)) for _ in range(5))}


CASES = {
    "shuffled_slices_then_a_variable": shuffled_slices_then_a_variable,
    "shuffle_without_any_seed": shuffle_without_any_seed,
    "shuffle_with_zero_seeds_yields_every_element": shuffle_with_zero_seeds_yields_every_element,
}
