"""tf.data's pipeline threads are sized by the process's thread budget (the one owner of CPU
counts): AUTOTUNE parallelism is the budget's width, and a map computed a batch at a time
(its batched form) uses no more threads than the budget gives one kernel. Elements and their
order stay what TF gives."""

from __future__ import annotations

import threading
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


def session(intra: int) -> Any:
    return tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=intra))


def read_all(sess: Any, fetch: Any) -> list[Any]:
    out = []
    while True:
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("intra", [1, 3])
def test_autotune_parallel_calls_are_the_thread_budgets_width(intra: int) -> None:
    autotune = tf.data.experimental.AUTOTUNE
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10**6).map(lambda x: x * 2, num_parallel_calls=autotune)
        nxt = ds.take(50).make_one_shot_iterator().get_next()
        with session(intra) as sess:
            assert sess.run(nxt) == 0
            assert len(map_threads()) == intra
            assert [int(v) for v in read_all(sess, nxt)] == list(range(2, 100, 2))


@pytest.mark.parametrize("intra", [1, 2])
def test_a_batched_map_uses_no_more_threads_than_the_budget(intra: int) -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(1000).map(lambda x: x * 3, num_parallel_calls=4)
        nxt = ds.batch(10).make_one_shot_iterator().get_next()
        with session(intra) as sess:
            first = sess.run(nxt)
            assert len(map_threads()) == (0 if intra == 1 else intra)
            rest = read_all(sess, nxt)
    got = np.concatenate([first, *rest])
    np.testing.assert_array_equal(got, np.arange(1000) * 3)


def test_a_shuffled_batched_map_gives_the_same_batches_whatever_the_budget(tmp_path: Any) -> None:
    path = str(tmp_path / "r.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(700):
            raw = tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes([i % 256] * 8)]))
            label = tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))
            example = tf.train.Example(
                features=tf.train.Features(feature={"raw": raw, "label": label})
            )
            w.write(example.SerializeToString())
    features = {
        "raw": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
    }

    def parse(serialized: Any) -> Any:
        f = tf.parse_single_example(serialized, features)
        return tf.cast(tf.decode_raw(f["raw"], tf.uint8), tf.float32) / 255.0, f["label"]

    def batches(intra: int) -> list[Any]:
        with tf.Graph().as_default():
            ds = tf.data.TFRecordDataset(path).map(parse, num_parallel_calls=2)
            ds = ds.shuffle(100, seed=7).batch(64).prefetch(1)
            nxt = ds.make_one_shot_iterator().get_next()
            with session(intra) as sess:
                return read_all(sess, nxt)

    one, two = batches(1), batches(2)
    assert [len(b[1]) for b in one] == [64] * 10 + [60]
    assert sorted(np.concatenate([b[1] for b in one]).tolist()) == list(range(700))
    for (x1, y1), (x2, y2) in zip(one, two, strict=True):
        np.testing.assert_array_equal(y1, y2)
        np.testing.assert_array_equal(x1, x2)
        pixels = np.repeat((y1 % 256).astype(np.float32)[:, None], 8, 1)
        # x / 255. in a dataset function is the product by the reciprocal, as in TF 1.15.
        np.testing.assert_array_equal(x1, pixels * np.reciprocal(np.float32(255)))
