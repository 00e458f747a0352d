"""A map computed a batch at a time (its batched form) behind a prefetch: the prefetch's
thread already runs ahead of the steps, so while the steps take longer than a batch takes to
compute, that thread computes the batches itself (no map threads, one hand-over fewer per
batch). When the steps keep waiting for the pipeline, the map's threads start. Batches and
their order are the same either way."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.runtime import thread_budget


@pytest.fixture(autouse=True)
def fresh_budget() -> Iterator[None]:
    thread_budget._reset_for_tests()
    yield
    thread_budget._reset_for_tests()


def map_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tfcluster-data-map")]


def session() -> Any:
    return tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=2))


def test_a_batched_map_behind_a_prefetch_computes_in_the_prefetch_thread_for_slow_steps() -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10**6).map(lambda x: x * 3, num_parallel_calls=2)
        nxt = ds.batch(10).prefetch(1).make_one_shot_iterator().get_next()
        with session() as sess:
            got = []
            for _ in range(20):
                got.append(sess.run(nxt))
                time.sleep(0.02)  # a training step far longer than a batch's map
            assert map_threads() == []
    np.testing.assert_array_equal(np.concatenate(got), np.arange(200) * 3)


def test_a_batched_map_behind_a_prefetch_starts_its_threads_when_the_steps_wait_for_it() -> None:
    n = 200_000

    def heavy(x: Any) -> Any:
        v = tf.cast(x, tf.float64)
        for _ in range(6):
            v = tf.sin(v) + tf.cos(v)
        return v

    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(n * 40).map(heavy, num_parallel_calls=2)
        nxt = ds.batch(n).prefetch(1).make_one_shot_iterator().get_next()
        with session() as sess:
            first = sess.run(nxt)
            for _ in range(20):  # steps that do nothing but take the next batch
                if len(map_threads()) == 2:
                    break
                sess.run(nxt)
            assert len(map_threads()) == 2
    expected = np.arange(n, dtype=np.float64)
    for _ in range(6):
        expected = np.sin(expected) + np.cos(expected)
    np.testing.assert_allclose(first, expected, rtol=1e-12)


def test_batches_are_the_same_whether_the_prefetch_thread_or_the_map_threads_compute_them() -> None:
    def batches(pause: float) -> list[Any]:
        with tf.Graph().as_default():
            ds = tf.data.Dataset.range(5000).shuffle(300, seed=3)
            ds = ds.map(lambda x: (x * 2, tf.cast(x, tf.float32) / 7.0), num_parallel_calls=2)
            nxt = ds.batch(64).prefetch(1).make_one_shot_iterator().get_next()
            out = []
            with session() as sess:
                while True:
                    try:
                        out.append(sess.run(nxt))
                    except tf.errors.OutOfRangeError:
                        return out
                    if pause:
                        time.sleep(pause)

    slow, fast = batches(0.005), batches(0.0)
    assert len(slow) == len(fast) == 79
    for (a1, b1), (a2, b2) in zip(slow, fast, strict=True):
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(b1, b2)
    assert sorted(np.concatenate([a for a, _ in slow]).tolist()) == list(range(0, 10000, 2))


def test_a_prefetch_takes_the_computed_batches_of_a_piece_in_one_hand_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tfcluster.kernels import dataset_functions

    pulls = []  # the prefetch thread's pulls that may compute (next(), not next_ready())
    plain_next = dataset_functions._VectorizedBatches.next

    def counted(self: Any) -> Any:
        pulls.append(1)
        return plain_next(self)

    monkeypatch.setattr(dataset_functions._VectorizedBatches, "next", counted)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(64 * 10).map(lambda x: x * 3, num_parallel_calls=2)
        nxt = ds.batch(10).repeat(2).prefetch(1).make_one_shot_iterator().get_next()
        with session() as sess:
            got = []
            while True:
                try:
                    got.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    break
                time.sleep(0.002)  # steps slower than the pipeline: no map threads
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
    assert len(got) == 128
    np.testing.assert_array_equal(np.concatenate(got), np.tile(np.arange(640) * 3, 2))
    # Pieces of up to 16 batches: one pull each (and one at each epoch's end), not 128.
    assert len(pulls) <= 16
