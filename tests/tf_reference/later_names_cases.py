"""Programs for TF 1.15 names added late (Keras's CTC backend, mixed-precision loss scaling,
early-stopping hooks...): each case builds a graph with `tf` (TensorFlow 1.15 when recorded by
record_later_names.py, tfcluster in tests/unit/test_later_names.py) and returns what it
computes. Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import numpy as np


def _softmax_outputs():
    rng = np.random.RandomState(7)
    y = rng.rand(3, 7, 5).astype(np.float32)
    return y / y.sum(-1, keepdims=True)


def keras_ctc_batch_cost(tf):
    K = tf.keras.backend
    labels = np.array([[1, 2, 0, 0], [3, 3, 1, 0], [0, 1, 2, 3]], np.float32)
    cost = K.ctc_batch_cost(
        labels,
        _softmax_outputs(),
        np.array([[7], [6], [7]], np.int64),
        np.array([[2], [3], [4]], np.int64),
    )
    with tf.Session() as sess:
        return {"cost": sess.run(cost), "shape": cost.shape.as_list()}


def keras_ctc_decode(tf):
    K = tf.keras.backend
    y = _softmax_outputs()
    lengths = np.array([7, 5, 6], np.int32)
    greedy, greedy_lp = K.ctc_decode(y, lengths)
    beams, beam_lp = K.ctc_decode(y, lengths, greedy=False, beam_width=5, top_paths=2)
    with tf.Session() as sess:
        g, glp, b, blp = sess.run([greedy, greedy_lp, beams, beam_lp])
    return {"greedy": g, "greedy_log_prob": glp, "beams": b, "beam_log_prob": blp}


def keras_ctc_label_dense_to_sparse(tf):
    K = tf.keras.backend
    st = K.ctc_label_dense_to_sparse(
        tf.constant([[4, 5, 6], [7, 0, 0], [1, 2, 0]]), tf.constant([3, 1, 2])
    )
    with tf.Session() as sess:
        v = sess.run(st)
    return {
        "indices": v.indices,
        "values": v.values,
        "dense_shape": v.dense_shape,
        "dtypes": [st.indices.dtype.name, st.values.dtype.name, st.dense_shape.dtype.name],
    }


CASES = {
    "keras_ctc_batch_cost": keras_ctc_batch_cost,
    "keras_ctc_decode": keras_ctc_decode,
    "keras_ctc_label_dense_to_sparse": keras_ctc_label_dense_to_sparse,
}
