"""The bits of a variable after sparse updates (a gather's gradient, duplicate rows summed
first) as TF 1.15's CPU kernels round them: SparseApplyAdagrad takes each row of a variable of
rank 2 or more as one Eigen expression, lr * g * a.rsqrt(), its whole packets of 8 floats by
the fast-math rsqrt (not correctly rounded) and the rest of the row as 1 / std::sqrt, and a
rank-1 variable's values as lr * g / std::sqrt(a); SparseApplyRMSProp (and its centered form)
rows as (ms + eps).rsqrt() * lr * g, SparseApplyAdagradV2 (Keras's Adagrad) rows as
lr * g / (a.sqrt() + eps), Adadelta's, ProximalAdagrad's, AdagradDA's and FTRL's rows
likewise (a shrink step with l1, whose sign() Eigen does not vectorise, value by value; FTRL's
other powers by glibc's powf), their roots by the same packets. Each case is
`fn(tf) -> dict of plain values`, recorded under TF 1.15 by record_sparse_update_rounding.py
and compared bit for bit by tests/unit/test_sparse_update_rounding.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

_IDS = np.array([3, 0, 3, 5, 1, 3, 0, 7], dtype=np.int32)  # duplicates, untouched rows


def _train(tf, shape, make_optimizer, steps=3, use_resource=False):
    rng = np.random.RandomState(7)
    start = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
    upstream = rng.uniform(-2.0, 2.0, (len(_IDS), *shape[1:])).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.get_variable("w", initializer=start, use_resource=use_resource)
        loss = tf.reduce_sum(tf.gather(w, _IDS) * upstream)
        grads = tf.gradients(loss, [w])
        step = make_optimizer(tf).apply_gradients(list(zip(grads, [w])))
        values = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(step)
                values.append(sess.run(w).ravel().tolist())
        return {"values": values}


def adagrad_rows_of_packets_and_a_tail(tf):
    """Rows of 13 values: one packet of 8 by the fast rsqrt, 5 by 1 / sqrt."""
    return _train(tf, (9, 13), lambda tf: tf.train.AdagradOptimizer(0.3))


def adagrad_rows_of_whole_packets(tf):
    return _train(tf, (9, 16), lambda tf: tf.train.AdagradOptimizer(0.05, 0.2))


def adagrad_rows_of_a_matrix_each(tf):
    """A rank-3 variable: each row is a 4 x 6 block of 24 values (3 packets)."""
    return _train(tf, (9, 4, 6), lambda tf: tf.train.AdagradOptimizer(0.1))


def adagrad_short_rows(tf):
    """Rows of 5 values: no whole packet, 1 / sqrt throughout."""
    return _train(tf, (9, 5), lambda tf: tf.train.AdagradOptimizer(0.7))


def adagrad_vector(tf):
    """A rank-1 variable: TF's loop over single values, lr * g / sqrt(a)."""
    return _train(tf, (9,), lambda tf: tf.train.AdagradOptimizer(0.3))


def adagrad_resource_rows(tf):
    return _train(tf, (9, 11), lambda tf: tf.train.AdagradOptimizer(0.3), use_resource=True)


def rms_prop_rows(tf):
    """Rows of 13: (ms + eps).rsqrt() * lr * g by packets, then the row's tail."""
    return _train(tf, (9, 13), lambda tf: tf.train.RMSPropOptimizer(0.01, momentum=0.5))


def rms_prop_vector(tf):
    return _train(tf, (9,), lambda tf: tf.train.RMSPropOptimizer(0.01, momentum=0.5))


def centered_rms_prop_rows(tf):
    return _train(
        tf, (9, 20), lambda tf: tf.train.RMSPropOptimizer(0.01, momentum=0.9, centered=True)
    )


def keras_adagrad_rows(tf):
    """Keras's Adagrad: SparseApplyAdagradV2, lr * g / (a.sqrt() + epsilon) by packets."""
    return _train(tf, (9, 13), lambda tf: tf.keras.optimizers.Adagrad(0.3), use_resource=True)


def keras_adagrad_vector(tf):
    return _train(tf, (9,), lambda tf: tf.keras.optimizers.Adagrad(0.3), use_resource=True)


def adadelta_rows(tf):
    return _train(tf, (9, 13), lambda tf: tf.train.AdadeltaOptimizer(1.0))


def proximal_adagrad_rows(tf):
    return _train(
        tf,
        (9, 13),
        lambda tf: tf.train.ProximalAdagradOptimizer(0.3, l1_regularization_strength=0.01),
    )


def proximal_adagrad_rows_without_l1(tf):
    return _train(tf, (9, 13), lambda tf: tf.train.ProximalAdagradOptimizer(0.3))


def ftrl_rows(tf):
    return _train(tf, (9, 13), lambda tf: tf.train.FtrlOptimizer(0.3))


def ftrl_rows_other_power(tf):
    return _train(tf, (9, 13), lambda tf: tf.train.FtrlOptimizer(0.3, learning_rate_power=-0.7))


def adagrad_da_rows(tf):
    def make(tf):
        step = tf.train.get_or_create_global_step()
        return tf.train.AdagradDAOptimizer(0.3, step)

    return _train(tf, (9, 13), make)


def adagrad_da_vector(tf):
    """A rank-1 variable: TF's loop over single values, in double."""

    def make(tf):
        step = tf.train.get_or_create_global_step()
        return tf.train.AdagradDAOptimizer(0.3, step, l2_regularization_strength=0.1)

    return _train(tf, (9,), make)


def proximal_adagrad_vector(tf):
    return _train(
        tf,
        (9,),
        lambda tf: tf.train.ProximalAdagradOptimizer(
            0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.1
        ),
    )


def ftrl_vector(tf):
    return _train(tf, (9,), lambda tf: tf.train.FtrlOptimizer(0.3, l2_regularization_strength=0.1))


def ftrl_dense_other_power(tf):
    """The dense update's powers too: glibc's powf value by value."""
    rng = np.random.RandomState(3)
    start = rng.uniform(-1.0, 1.0, (7, 5)).astype(np.float32)
    upstream = rng.uniform(-2.0, 2.0, (7, 5)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.get_variable("w", initializer=start)
        loss = tf.reduce_sum(w * w * upstream)
        step = tf.train.FtrlOptimizer(0.3, learning_rate_power=-0.7).minimize(loss)
        values = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(step)
                values.append(sess.run(w).ravel().tolist())
        return {"values": values}


CASES = {
    "adagrad_rows_of_packets_and_a_tail": adagrad_rows_of_packets_and_a_tail,
    "adagrad_rows_of_whole_packets": adagrad_rows_of_whole_packets,
    "adagrad_rows_of_a_matrix_each": adagrad_rows_of_a_matrix_each,
    "adagrad_short_rows": adagrad_short_rows,
    "adagrad_vector": adagrad_vector,
    "adagrad_resource_rows": adagrad_resource_rows,
    "rms_prop_rows": rms_prop_rows,
    "rms_prop_vector": rms_prop_vector,
    "centered_rms_prop_rows": centered_rms_prop_rows,
    "keras_adagrad_rows": keras_adagrad_rows,
    "keras_adagrad_vector": keras_adagrad_vector,
    "adadelta_rows": adadelta_rows,
    "proximal_adagrad_rows": proximal_adagrad_rows,
    "proximal_adagrad_rows_without_l1": proximal_adagrad_rows_without_l1,
    "ftrl_rows": ftrl_rows,
    "ftrl_rows_other_power": ftrl_rows_other_power,
    "adagrad_da_rows": adagrad_da_rows,
    "ftrl_dense_other_power": ftrl_dense_other_power,
    "adagrad_da_vector": adagrad_da_vector,
    "proximal_adagrad_vector": proximal_adagrad_vector,
    "ftrl_vector": ftrl_vector,
}
