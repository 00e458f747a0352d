"""A map computed a batch at a time (its batched form) calls that form on a few batches'
elements at once when the function has no state, and cuts the results into the batches;
a function with random ops is called once per batch. Batches, their order and an element's
error in its batch's place stay what the element-by-element map gives."""

from __future__ import annotations

import pathlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import dataset_base, dataset_functions
from tfcluster.runtime import thread_budget


@pytest.fixture(autouse=True)
def fresh_budget() -> Iterator[None]:
    thread_budget._reset_for_tests()
    yield
    thread_budget._reset_for_tests()


@pytest.fixture
def batched_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of elements of each call of a function's batched form."""
    calls: list[int] = []
    real = dataset_base.DatasetFunction.call_tensors

    def counted(self: Any, pipeline: Any, args: Any) -> Any:
        if self.what.endswith("vectorized_f"):
            calls.append(len(args[0]))
        return real(self, pipeline, args)

    monkeypatch.setattr(dataset_base.DatasetFunction, "call_tensors", counted)
    return calls


def take(nxt: Any, count: int, pause: float = 0.01) -> list[Any]:
    out = []
    with tf.Session() as sess:
        for _ in range(count):
            out.append(sess.run(nxt))
            time.sleep(pause)
    return out


def test_a_function_without_state_is_called_on_several_batches_at_once(
    batched_calls: list[int],
) -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10**6).map(lambda x: x * 3, num_parallel_calls=2)
        nxt = ds.batch(8).prefetch(1).make_one_shot_iterator().get_next()
        got = take(nxt, 20)
    np.testing.assert_array_equal(np.concatenate(got), np.arange(160) * 3)
    assert batched_calls[0] == 8  # the first batch alone (its size sizes the pieces)
    per_call = dataset_functions._PIECE_BATCHES  # then this many batches a call
    assert set(batched_calls[1:]) == {8 * per_call}
    assert len(batched_calls) <= 1 + 20 // per_call + 2


def test_later_epochs_of_a_batched_map_start_with_whole_pieces(
    batched_calls: list[int],
) -> None:
    per_call = dataset_functions._PIECE_BATCHES
    epoch = 8 * (2 * per_call + 3)  # two whole pieces and three batches an epoch
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(epoch).map(lambda x: x * 3, num_parallel_calls=2)
        nxt = ds.batch(8).repeat(3).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = [sess.run(nxt) for _ in range(3 * epoch // 8)]
    np.testing.assert_array_equal(np.concatenate(got), np.tile(np.arange(epoch) * 3, 3))
    # The first batch alone only in the first epoch: its size sizes the pieces of all. (How
    # many one-batch pieces the first epoch has depends on how the map's two threads race
    # for the first pull.)
    ends = list(np.cumsum(batched_calls))
    first_epoch = batched_calls[: ends.index(epoch) + 1]
    assert first_epoch[0] == 8
    later = [8 * per_call, 8 * per_call, 8 * 3]
    assert batched_calls[len(first_epoch) :] == later + later


def test_a_function_with_random_ops_is_called_once_per_batch(batched_calls: list[int]) -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10**6).map(
            lambda x: tf.cast(x, tf.float32) + tf.random_uniform([], seed=5),
            num_parallel_calls=2,
        )
        nxt = ds.batch(8).prefetch(1).make_one_shot_iterator().get_next()
        got = take(nxt, 12)
    assert set(batched_calls) == {8}
    values = np.concatenate(got) - np.arange(96, dtype=np.float32)
    assert ((values >= 0) & (values < 1)).all()


def test_an_elements_error_comes_in_its_batchs_place_and_the_batches_after_it_follow(
    batched_calls: list[int],
) -> None:
    def batches(pause: float) -> list[Any]:
        with tf.Graph().as_default():
            strings = [b"ab"] * 200
            strings[77] = b"abc"  # not a whole number of int16s
            ds = tf.data.Dataset.from_tensor_slices((strings, np.arange(200))).map(
                lambda s, i: (tf.decode_raw(s, tf.int16), i), num_parallel_calls=2
            )
            nxt = ds.batch(10).prefetch(1).make_one_shot_iterator().get_next()
            out: list[Any] = []
            with tf.Session() as sess:
                while True:
                    try:
                        out.append(sess.run(nxt)[1].tolist())
                    except tf.errors.InvalidArgumentError as e:
                        out.append(type(e).__name__)
                    except tf.errors.OutOfRangeError:
                        return out
                    time.sleep(pause)

    got = batches(0.005)
    assert max(batched_calls) > 10  # batches were joined before the error
    # As TF 1.15 gives it (map and batch fused): the failing batch's elements are used up.
    assert got[7] == "InvalidArgumentError"
    assert got[:7] + got[8:] == [list(range(a, a + 10)) for a in range(0, 200, 10) if a != 70]
    assert batches(0.0) == got


def test_a_corrupt_record_ends_the_batches_read_before_it_then_raises(
    tmp_path: Any, batched_calls: list[int]
) -> None:
    path = str(tmp_path / "r.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(300):
            label = tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))
            w.write(
                tf.train.Example(
                    features=tf.train.Features(feature={"label": label})
                ).SerializeToString()
            )
    data = bytearray(pathlib.Path(path).read_bytes())
    record = len(data) // 300
    data[record * 173 + 14] ^= 0xFF  # a byte of record 173's data: its crc fails
    pathlib.Path(path).write_bytes(bytes(data))
    features = {"label": tf.FixedLenFeature([], tf.int64)}
    with tf.Graph().as_default():
        ds = tf.data.TFRecordDataset(path).map(
            lambda s: tf.parse_single_example(s, features)["label"], num_parallel_calls=2
        )
        nxt = ds.batch(10).prefetch(1).make_one_shot_iterator().get_next()
        got: list[Any] = []
        with tf.Session() as sess:
            while True:
                try:
                    got.append(sess.run(nxt).tolist())
                except tf.errors.DataLossError as e:
                    got.append(type(e).__name__)
                except tf.errors.OutOfRangeError:
                    break
                time.sleep(0.005)
    assert max(batched_calls) > 10
    assert got == [list(range(a, a + 10)) for a in range(0, 170, 10)] + ["DataLossError"]


def test_a_prefetch_asks_for_the_next_piece_while_batches_of_the_last_still_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The piece after a full one (the first piece is one batch) is computed while the steps
    # take the last batches of the one before, not once a step finds the buffer empty.
    taken = [0]
    computed_at: list[int] = []
    real = dataset_functions._VectorizedBatches._compute

    def compute(self: Any, piece: Any) -> Any:
        computed_at.append(taken[0])
        return real(self, piece)

    monkeypatch.setattr(dataset_functions._VectorizedBatches, "_compute", compute)
    pieces = dataset_functions._PIECE_BATCHES
    ds = tf.data.Dataset.range(8 * pieces * 4).map(lambda x: x * 2).batch(8).prefetch(1)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        for _ in range(1 + pieces - 2):
            sess.run(nxt)
            taken[0] += 1
        deadline = time.monotonic() + 30
        while len(computed_at) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        # The prefetcher may start a piece before the step that asked for it returns (and
        # `taken` counts it): each count is exact or one less.
        assert computed_at[0] == 0
        assert computed_at[1] in (0, 1)
        assert computed_at[2] in (pieces - 2, 1 + pieces - 2)
        got = [sess.run(nxt).tolist() for _ in range(3)]
    assert got[0] == [2 * x for x in range(8 * (pieces - 1), 8 * pieces)]
