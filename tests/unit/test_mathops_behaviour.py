"""What the TF-recorded cases cannot show for the math, linalg, nn-normalisation and random
ops: TF 1.15 behaviours that TF 2.x changed, errors that leave the session usable, locking
scatters under concurrency, dropout's noise_shape structure, the special functions against
independent references, and vectorised kernels keeping large inputs fast."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import special_math


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_an_error_as_in_tf_1_15() -> None:
    # TF 2.x returns NaNs here; TF 1.15's kernel raised InvalidArgumentError.
    chol = tf.cholesky(tf.constant(-np.eye(2)))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky"):
        sess.run(chol)


def test_fused_batch_norm_refuses_population_statistics_while_training() -> None:
    x = tf.zeros([1, 2, 2, 3])
    scale = tf.ones([3])
    with pytest.raises(ValueError, match="must be None when is_training"):
        tf.nn.fused_batch_norm(x, scale, scale, mean=scale, variance=scale)


def test_lin_space_needs_a_positive_count_as_in_tf_1_15() -> None:
    num = tf.placeholder(tf.int32, [])
    values = tf.linspace(0.0, 1.0, num)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="num > 0"):
            sess.run(values, {num: 0})
        np.testing.assert_allclose(sess.run(values, {num: 3}), [0.0, 0.5, 1.0])


def test_a_bad_index_fails_the_step_and_the_session_keeps_working() -> None:
    data = tf.constant(np.arange(6.0).reshape(3, 2))
    ids = tf.placeholder(tf.int32, [3])
    total = tf.unsorted_segment_sum(data, ids, 2)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
            sess.run(total, {ids: [0, 5, 1]})
        np.testing.assert_allclose(sess.run(total, {ids: [0, 1, 1]}), [[0, 1], [6, 8]])


def test_locking_scatter_adds_from_many_threads_all_land() -> None:
    counts = tf.Variable(np.zeros(4, np.int64))
    step = tf.scatter_add(
        counts, [0, 1, 1, 3], tf.constant([1, 1, 1, 1], tf.int64), use_locking=True
    )
    with tf.Session() as sess:
        sess.run(counts.initializer)

        def work() -> None:
            for _ in range(50):
                sess.run(step.op)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(sess.run(counts), [200, 400, 0, 200])


def test_dropout_noise_shape_drops_whole_broadcast_slices() -> None:
    x = tf.ones([4, 3, 5])
    y = tf.nn.dropout(x, rate=0.5, noise_shape=[4, 1, 5], seed=3)
    with tf.Session() as sess:
        out = sess.run(y)
    # Each (batch, channel) column is all kept (scaled by 2) or all dropped.
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert np.all(out == out[:, :1, :])


def test_stateless_ops_repeat_for_the_same_seed_and_differ_for_another() -> None:
    a = tf.random.stateless_normal([50], [4, 5])
    b = tf.random.stateless_normal([50], [4, 5])
    c = tf.random.stateless_normal([50], [4, 6])
    with tf.Session() as sess:
        va, vb, vc = sess.run([a, b, c])
    np.testing.assert_array_equal(va, vb)
    assert not np.allclose(va, vc)


def test_seeded_samplers_follow_tf1_seed_semantics() -> None:
    tf.set_random_seed(11)
    m = tf.multinomial(tf.zeros([2, 4]), 30)
    g = tf.random_gamma([30], 2.0)
    with tf.Session() as sess:
        first = sess.run([m, g])
        second = sess.run([m, g])
    with tf.Session() as sess:
        replay = sess.run([m, g])
    # Every run draws anew; a new session replays the same sequence.
    assert not np.array_equal(first[1], second[1])
    for want, got in zip(first, replay):
        np.testing.assert_array_equal(want, got)


def test_categorical_follows_its_probabilities() -> None:
    logits = tf.log(tf.constant([[0.1, 0.6, 0.3]]))
    sample = tf.random.categorical(logits, 20000, seed=1)
    with tf.Session() as sess:
        counts = np.bincount(sess.run(sample)[0], minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.6, 0.3], atol=0.02)


@pytest.mark.parametrize(
    ("fn", "reference"),
    [
        (special_math.erf, np.vectorize(math.erf)),
        (special_math.erfc, np.vectorize(math.erfc)),
        (special_math.lgamma, np.vectorize(math.lgamma)),
    ],
    ids=["erf", "erfc", "lgamma"],
)
def test_special_functions_agree_with_the_standard_library(fn: object, reference: object) -> None:
    x = np.concatenate([np.linspace(-7.5, 7.5, 301), [1e-9, 0.5, 1.0, 2.0, 25.0, 170.0]])
    if fn is special_math.lgamma:
        x = x[(x > 0) | (x != np.floor(x))]  # the poles: math.lgamma raises there
    got = fn(np, x)  # type: ignore[operator]
    want = reference(x)  # type: ignore[operator]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_regularized_incomplete_gamma_halves_sum_to_one() -> None:
    a = np.linspace(0.1, 60.0, 97)[:, None]
    x = np.linspace(0.0, 120.0, 61)[None, :]
    p, q = special_math.igamma_pq(np, a, x)
    np.testing.assert_allclose(p + q, 1.0, atol=1e-12)
    # P(1, x) = 1 - exp(-x) exactly.
    p1, _ = special_math.igamma_pq(np, np.ones(61), x[0])
    np.testing.assert_allclose(p1, -np.expm1(-x[0]), rtol=1e-13, atol=1e-15)


def test_segment_and_scatter_kernels_stay_fast_on_large_inputs() -> None:
    n = 1_000_000
    data = tf.constant(np.ones((n, 4), np.float32))
    ids = tf.constant(np.sort(np.random.default_rng(0).integers(0, 1000, n)).astype(np.int32))
    ops = [
        tf.segment_sum(data, ids),
        tf.unsorted_segment_max(data, ids, 1000),
        tf.unsorted_segment_prod(data, ids, 1000),
        tf.math.top_k(tf.reshape(data[:, 0], [1000, 1000]), 10).values,
    ]
    with tf.Session() as sess:
        sess.run(ops)
        start = time.perf_counter()
        sess.run(ops)
        took = time.perf_counter() - start
    assert took < 5.0, f"segment/top_k kernels took {took:.2f}s for 1M rows"
