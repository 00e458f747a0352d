"""A shuffle under a batched map hands out several batches' elements in one call, with what
one call per batch gives: the same batches in the same order, and a bad record's error in the
same batch, the batch's elements read before it lost."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
import tfcluster as tf
from tfcluster.kernels import dataset_functions, dataset_ordering

FEATURES = {"label": tf.FixedLenFeature([], tf.int64)}


def write(path: pathlib.Path, labels: range, corrupt: int | None = None) -> str:
    with tf.python_io.TFRecordWriter(str(path)) as w:
        for i in labels:
            label = tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))
            example = tf.train.Example(features=tf.train.Features(feature={"label": label}))
            w.write(example.SerializeToString())
    if corrupt is not None:
        data = bytearray(path.read_bytes())
        size = len(data) // len(labels)
        data[size * corrupt + 14] ^= 0xFF  # a byte of that record's data: its crc fails
        path.write_bytes(bytes(data))
    return str(path)


def outcomes(paths: list[str], interleave: bool, batch: int, drop: bool) -> list[Any]:
    """Each get_next's labels, or the error's class."""
    with tf.Graph().as_default():
        if interleave:
            files = tf.data.Dataset.from_tensor_slices(paths)
            ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2)
        else:
            ds = tf.data.TFRecordDataset(paths)
        ds = ds.map(lambda s: tf.parse_single_example(s, FEATURES)["label"], num_parallel_calls=2)
        ds = ds.shuffle(100, seed=3).batch(batch, drop_remainder=drop).prefetch(1)
        nxt = ds.make_one_shot_iterator().get_next()
        out: list[Any] = []
        with tf.Session() as sess:
            while True:
                try:
                    out.append(sess.run(nxt).tolist())
                except tf.errors.DataLossError as e:
                    out.append(type(e).__name__)
                except tf.errors.OutOfRangeError:
                    return out


@pytest.fixture
def shuffle_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of elements of each of a shuffle's hand-outs of columns to its consumer
    (one call of next_columns_ahead, or of next_columns made by the consumer itself)."""
    calls: list[int] = []
    inside = [False]
    real_ahead = dataset_ordering._ShuffleIterator.next_columns_ahead
    real_columns = dataset_ordering._ShuffleIterator.next_columns

    def ahead(self: Any, n: int, chunk: int) -> Any:
        inside[0] = True
        try:
            got = real_ahead(self, n, chunk)
        finally:
            inside[0] = False
        if got is not None and got[0]:
            calls.append(len(got[0][0]))
        return got

    def columns(self: Any, n: int) -> Any:
        got = real_columns(self, n)
        if not inside[0] and got:
            calls.append(len(got[0]))
        return got

    monkeypatch.setattr(dataset_ordering._ShuffleIterator, "next_columns_ahead", ahead)
    monkeypatch.setattr(dataset_ordering._ShuffleIterator, "next_columns", columns)
    return calls


def one_batch_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        dataset_ordering._ShuffleIterator, "next_columns_ahead", lambda self, n, chunk: None
    )


@pytest.mark.parametrize("interleave", [True, False])
def test_a_shuffle_under_a_batched_map_hands_out_several_batches_in_one_call(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    shuffle_calls: list[int],
    interleave: bool,
) -> None:
    paths = [
        write(tmp_path / "a.tfrecord", range(700)),
        write(tmp_path / "b.tfrecord", range(1000, 1500)),
    ]
    got = outcomes(paths, interleave, 16, drop=False)
    assert max(shuffle_calls) == dataset_functions._PIECE_BATCHES * 16  # picks of a piece at once
    assert len(shuffle_calls) < len(got) / 2
    one_batch_a_call(monkeypatch)
    shuffle_calls.clear()
    assert outcomes(paths, interleave, 16, drop=False) == got
    assert max(shuffle_calls) == 16
    assert sorted(x for b in got for x in b) == [*range(700), *range(1000, 1500)]


@pytest.mark.parametrize("interleave", [True, False])
@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("bad", [5, 333, 590])
def test_a_bad_record_under_a_shuffle_fails_in_the_batch_one_call_per_batch_gives(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    shuffle_calls: list[int],
    interleave: bool,
    drop: bool,
    bad: int,
) -> None:
    paths = [
        write(tmp_path / "a.tfrecord", range(600), corrupt=bad),
        write(tmp_path / "b.tfrecord", range(1000, 1450)),
    ]
    got = outcomes(paths, interleave, 12, drop)
    assert "DataLossError" in got
    assert max(shuffle_calls) > 12
    one_batch_a_call(monkeypatch)
    assert outcomes(paths, interleave, 12, drop) == got
