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
    original = dataset_ordering._ShuffleIterator.next_columns

    def counting(self: Any, n: int) -> Any:
        cols = original(self, n)
        if cols:
            taken.append(len(cols[0]))
        return cols

    monkeypatch.setattr(dataset_ordering._ShuffleIterator, "next_columns", counting)
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


def write_records(path: str, records: list[bytes]) -> None:
    with tf.python_io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)


def outcomes(make: Any, batch: int) -> list[Any]:
    """Each get_next's records (a batch flattened, or one), or its DataLossError's text."""
    with tf.Graph().as_default():
        ds = make()
        nxt = tf.data.make_one_shot_iterator(ds.batch(batch) if batch > 1 else ds).get_next()
        out: list[Any] = []
        with tf.Session() as sess:
            while True:
                try:
                    got = sess.run(nxt)
                except tf.errors.DataLossError as e:
                    out.append(("DataLossError", str(e).split(" in file")[0]))
                    continue
                except tf.errors.OutOfRangeError:
                    return out
                out.append(got.tolist() if batch > 1 else [got])


@pytest.mark.parametrize("block", [1, 3])
def test_batches_of_interleaved_record_files_keep_the_interleave_order(
    tmp_path: Any, block: int
) -> None:
    # Files of different lengths: slots run out at different times and are replaced.
    sizes = [70, 5, 130, 41, 90]
    paths = []
    for k, size in enumerate(sizes):
        paths.append(str(tmp_path / f"f{k}.tfrecord"))
        write_records(paths[-1], [f"{k}-{i}".encode() * (1 + i % 3) for i in range(size)])

    def make() -> Any:
        files = tf.data.Dataset.from_tensor_slices(paths)
        return files.interleave(tf.data.TFRecordDataset, cycle_length=3, block_length=block)

    singles = [r for item in outcomes(make, 1) for r in item]
    assert len(singles) == sum(sizes)
    assert [r for item in outcomes(make, 32) for r in item] == singles


def test_a_bad_record_in_interleaved_files_fails_in_the_batch_that_reaches_it(
    tmp_path: Any,
) -> None:
    paths = [str(tmp_path / f"f{k}.tfrecord") for k in range(2)]
    records = [[f"{k}-{i:03d}".encode() for i in range(200)] for k in range(2)]
    for path, recs in zip(paths, records):
        write_records(path, recs)
    data = bytearray((tmp_path / "f1.tfrecord").read_bytes())
    at = sum(len(r) + 16 for r in records[1][:150]) + 12  # the data of record 150 of f1
    data[at] ^= 1
    (tmp_path / "f1.tfrecord").write_bytes(bytes(data))

    def make() -> Any:
        files = tf.data.Dataset.from_tensor_slices(paths)
        return files.interleave(tf.data.TFRecordDataset, cycle_length=2)

    singles = outcomes(make, 1)
    error = ("DataLossError", f"corrupted record at {at}")
    # One by one: f0 and f1 in turn up to f1's bad record, its error, then the rest of f0.
    turns = [[r] for pair in zip(records[0][:150], records[1][:150]) for r in pair]
    assert singles == [*turns, [records[0][150]], error, *[[r] for r in records[0][151:]]]
    # Batches of 64: the batch that reaches the error is lost (as TF's), then the rest.
    flat = [r[0] for r in turns] + [records[0][150]]
    batched = outcomes(make, 64)
    assert batched[:4] == [flat[i : i + 64] for i in range(0, 256, 64)]
    assert batched[4] == error
    assert [r for item in batched[5:] for r in item] == records[0][151:]


def test_a_bad_record_under_a_shuffle_keeps_the_records_read_before_it_in_the_buffer(
    tmp_path: Any,
) -> None:
    # The shuffle reads its input ahead (many records a call); the error still comes where
    # reading one record at a time (TF's fill loop) meets it, and the records before it stay
    # in the buffer: batches hold the one-by-one order, less the batch the error ends.
    paths = [str(tmp_path / f"f{k}.tfrecord") for k in range(2)]
    records = [[f"{k}-{i:03d}".encode() for i in range(200)] for k in range(2)]
    for path, recs in zip(paths, records):
        write_records(path, recs)
    data = bytearray((tmp_path / "f1.tfrecord").read_bytes())
    data[sum(len(r) + 16 for r in records[1][:150]) + 12] ^= 1  # the data of record 150
    (tmp_path / "f1.tfrecord").write_bytes(bytes(data))

    def make() -> Any:
        files = tf.data.Dataset.from_tensor_slices(paths)
        ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2)
        return ds.shuffle(64, seed=3)

    singles = outcomes(make, 1)
    bad = next(i for i, item in enumerate(singles) if item[0] == "DataLossError")
    before = [r for item in singles[:bad] for r in item]
    after = [r for item in singles[bad + 1 :] for r in item]
    assert len(before) + len(after) == 350  # f1 is given up at its bad record
    whole = len(before) // 32 * 32
    batched = outcomes(make, 32)
    assert batched == [
        *[before[i : i + 32] for i in range(0, whole, 32)],
        singles[bad],
        *[after[i : i + 32] for i in range(0, len(after), 32)],
    ]


def interleaved_record_rounds(tmp_path: Any, monkeypatch: Any) -> tuple[Any, list[int | None]]:
    """Two files of 100 records interleaved with cycle_length 2 (a maker of the dataset), and
    the number of rounds each call of the interleave's whole-round read gave (None: none)."""
    from tfcluster.kernels import dataset_functions

    calls: list[int | None] = []
    original = dataset_functions._InterleaveIterator._record_rounds

    def counting(self: Any, n: int) -> Any:
        got = original(self, n)
        calls.append(None if got is None else len(got))
        return got

    monkeypatch.setattr(dataset_functions._InterleaveIterator, "_record_rounds", counting)
    paths = [str(tmp_path / f"f{k}.tfrecord") for k in range(2)]
    for k, path in enumerate(paths):
        write_records(path, [f"{k}-{i}".encode() for i in range(100)])

    def make() -> Any:
        files = tf.data.Dataset.from_tensor_slices(paths)
        return files.interleave(tf.data.TFRecordDataset, cycle_length=2)

    return make, calls


INTERLEAVED = [f"{k}-{i}".encode() for i in range(100) for k in range(2)]


def test_batches_of_interleaved_records_are_read_as_whole_rounds(
    tmp_path: Any, monkeypatch: Any
) -> None:
    make, calls = interleaved_record_rounds(tmp_path, monkeypatch)
    got = [r for item in outcomes(make, 50) for r in item]
    assert got == INTERLEAVED
    rounds = [n for n in calls if n is not None]
    assert rounds and max(rounds) == 50


def test_batches_starting_inside_a_round_still_read_the_rounds_after_it_whole(
    tmp_path: Any, monkeypatch: Any
) -> None:
    make, calls = interleaved_record_rounds(tmp_path, monkeypatch)
    # Batches of 25 from a cycle of 2: every other batch starts in the middle of a round.
    got = outcomes(make, 25)
    assert [r for item in got for r in item] == INTERLEAVED
    taken = [n for n in calls if n]
    assert len(taken) == len(got)
    # The first batch opens the slots in its first round (one by one), then reads rounds.
    assert taken[0] == 22
    assert all(n == 24 for n in taken[1:])


def test_later_epochs_of_a_shuffle_draw_their_picks_in_one_block(monkeypatch: Any) -> None:
    blocks: list[int] = []
    original = dataset_ordering._ShuffleIterator._more_draws

    def counting(self: Any, k: int = 1) -> None:
        before = self._calls
        original(self, k)
        blocks.append(self._calls - before)

    monkeypatch.setattr(dataset_ordering._ShuffleIterator, "_more_draws", counting)
    ds = tf.data.Dataset.range(5000).shuffle(1000, seed=3).batch(100).repeat(3)
    got = [int(v) for v in np.concatenate(one_by_one(ds))]
    # 5000 picks (1250 Philox calls) an epoch: growing blocks the first time, then one.
    assert blocks == [256, 512, 1024, 1250, 1250]
    for epoch in range(3):
        assert sorted(got[5000 * epoch : 5000 * (epoch + 1)]) == list(range(5000))
    # The same picks as with the fewest draws computed at a time.
    monkeypatch.setattr(dataset_ordering, "_DRAW_CALLS", 1)
    monkeypatch.setattr(dataset_ordering, "_MAX_DRAW_CALLS", 1)
    with tf.Graph().as_default():
        fresh = tf.data.Dataset.range(5000).shuffle(1000, seed=3).batch(100).repeat(3)
        assert [int(v) for v in np.concatenate(one_by_one(fresh))] == got
    assert max(blocks[5:]) <= 32  # (a run of picks draws what it needs at once)
