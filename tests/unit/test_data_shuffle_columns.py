"""A shuffle whose consumer takes columns (a batch, a map's batched form) keeps its buffer as
arrays and makes a run of picks at once: the elements, and their order, are those of taking
them one by one with the same seed, also when a place is picked twice in one run, at the end
of the input, across epochs, and over interleaved record files."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import dataset_ordering


def one_by_one(ds: Any) -> list[Any]:
    """Every element, each from its own get_next."""
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out: list[Any] = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


def batched(ds: Any, n: int) -> list[Any]:
    """Every element, from batches of n (flattened again)."""
    nxt = tf.data.make_one_shot_iterator(ds.batch(n)).get_next()
    out: list[Any] = []
    with tf.Session() as sess:
        while True:
            try:
                got = sess.run(nxt)
            except tf.errors.OutOfRangeError:
                return out
            out += list(got)


@pytest.mark.parametrize(("buffer", "batch"), [(10, 7), (4, 64), (100, 128), (1, 5)])
def test_batches_of_a_shuffle_hold_the_elements_in_the_order_taken_one_by_one(
    buffer: int, batch: int
) -> None:
    # A buffer smaller than a batch makes runs of picks that hit one place several times.
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(300).shuffle(buffer, seed=7)
        singles = [int(x) for x in one_by_one(ds)]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(300).shuffle(buffer, seed=7)
        runs = [int(x) for x in batched(ds, batch)]
    assert sorted(singles) == list(range(300))
    assert runs == singles


def test_the_column_buffer_is_used_by_a_batch_after_a_shuffle(monkeypatch: Any) -> None:
    # The equality above only means something if batches really take the column path.
    taken: list[int] = []
    original = dataset_ordering._ShuffleIterator._replace

    def counting(self: Any, fresh: Any, m: int) -> Any:
        taken.append(m)
        return original(self, fresh, m)

    monkeypatch.setattr(dataset_ordering._ShuffleIterator, "_replace", counting)
    with tf.Graph().as_default():
        batched(tf.data.Dataset.range(50).shuffle(8, seed=1), 16)
    assert taken and max(taken) > 1


def test_shuffled_record_files_through_a_batched_map_match_one_by_one(tmp_path: Any) -> None:
    paths = []
    for k in range(4):
        path = str(tmp_path / f"part-{k}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(150):
                example = tf.train.Example(
                    features=tf.train.Features(
                        feature={
                            "x": tf.train.Feature(
                                bytes_list=tf.train.BytesList(value=[bytes([k, i % 256]) * 8])
                            ),
                            "y": tf.train.Feature(
                                int64_list=tf.train.Int64List(value=[1000 * k + i])
                            ),
                        }
                    )
                )
                w.write(example.SerializeToString())
        paths.append(path)
    features = {
        "x": tf.FixedLenFeature([], tf.string),
        "y": tf.FixedLenFeature([], tf.int64),
    }

    def pipeline() -> Any:
        files = tf.data.Dataset.from_tensor_slices(paths)
        ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2)
        ds = ds.map(lambda s: tf.parse_single_example(s, features)["y"], num_parallel_calls=2)
        return ds.shuffle(64, seed=3).repeat(2)

    with tf.Graph().as_default():
        singles = [int(v) for v in one_by_one(pipeline())]
    with tf.Graph().as_default():
        runs = [int(v) for v in batched(pipeline(), 50)]
    assert len(singles) == 1200
    assert sorted(singles[:600]) == sorted(1000 * k + i for k in range(4) for i in range(150))
    assert runs == singles


def test_string_and_vector_leaves_keep_their_values_through_the_column_buffer() -> None:
    words = np.array([f"w{i}".encode() for i in range(40)], dtype=object)
    vectors = np.arange(80, dtype=np.float32).reshape(40, 2)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices((words, vectors)).shuffle(6, seed=5)
        singles = one_by_one(ds)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices((words, vectors)).shuffle(6, seed=5)
        nxt = tf.data.make_one_shot_iterator(ds.batch(16)).get_next()
        runs: list[tuple[bytes, list[float]]] = []
        with tf.Session() as sess:
            for _ in range(3):
                w, v = sess.run(nxt)
                assert w.dtype == object and v.dtype == np.float32
                runs += [(a, b.tolist()) for a, b in zip(w.tolist(), v)]
    assert runs == [(a, b.tolist()) for a, b in singles]
