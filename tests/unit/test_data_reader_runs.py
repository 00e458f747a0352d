"""File datasets read small records many at a time (runs of about 1 MB): the records, their
order and the place of a bad record's DataLossError are those of reading one by one."""

from __future__ import annotations

from typing import Any

import tfcluster as tf


def write(path: str, records: list[bytes]) -> None:
    with tf.python_io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)


def outcomes(paths: list[str], batch: int) -> list[Any]:
    """What each get_next gives: a list of records, or the error's class and message."""
    with tf.Graph().as_default():
        ds = tf.data.TFRecordDataset(paths)
        nxt = (ds.batch(batch) if batch > 1 else ds).make_one_shot_iterator().get_next()
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


def test_a_bad_record_deep_in_a_file_of_small_records_fails_in_its_place(tmp_path: Any) -> None:
    first = [f"a-{i:04d}".encode() for i in range(900)]
    second = [f"b-{i:04d}".encode() for i in range(50)]
    paths = [str(tmp_path / "a.tfrecord"), str(tmp_path / "b.tfrecord")]
    write(paths[0], first)
    write(paths[1], second)
    data = bytearray((tmp_path / "a.tfrecord").read_bytes())
    at = sum(len(r) + 16 for r in first[:700]) + 12  # the data of record 700
    data[at] ^= 1
    (tmp_path / "a.tfrecord").write_bytes(bytes(data))

    one_by_one = outcomes(paths, 1)
    error = ("DataLossError", f"corrupted record at {at}")
    # The records before the bad one, its error, then the next file (as TF's readers).
    assert one_by_one == [[r] for r in first[:700]] + [error] + [[r] for r in second]
    # Batches: the batch holding the error is lost, as in TF.
    batched = outcomes(paths, 100)
    assert batched == [first[i : i + 100] for i in range(0, 700, 100)] + [error, second]


def test_records_of_many_sizes_come_back_in_order(tmp_path: Any) -> None:
    records = [bytes([i % 251]) * (1 + (i * 7919) % 3000) for i in range(600)]
    path = str(tmp_path / "mixed.tfrecord")
    write(path, records)
    got = [r for item in outcomes([path], 64) for r in item]
    assert got == records


def test_records_of_about_a_kilobyte_are_read_a_megabyte_at_a_time(
    tmp_path: Any, monkeypatch: Any
) -> None:
    from tfcluster.lib.io import tfrecord

    records = [bytes([i % 251]) * 800 + f"{i:06d}".encode() for i in range(2000)]
    path = str(tmp_path / "kb.tfrecord")
    write(path, records)
    calls: list[int] = []
    read_batch = tfrecord.RecordReader.read_batch

    def counted(self: Any, max_records: int) -> list[bytes]:
        got = read_batch(self, max_records)
        calls.append(len(got))
        return got

    monkeypatch.setattr(tfrecord.RecordReader, "read_batch", counted)
    got = [r for item in outcomes([path], 128) for r in item]
    assert got == records
    # ~1.6 MB of records: a first short run (the record size is not known yet), then runs
    # of ~1 MB, not a read per 256 records.
    assert len([n for n in calls if n]) <= 3, calls


def test_a_run_of_small_records_is_read_from_the_file_at_once_whatever_the_buffer_size(
    tmp_path: Any, monkeypatch: Any
) -> None:
    from tfcluster.lib.io import tfrecord

    records = [bytes([i % 251]) * 800 + f"{i:06d}".encode() for i in range(2000)]
    path = str(tmp_path / "kb.tfrecord")
    write(path, records)
    reads: list[int] = []
    pread = tfrecord.RecordReader._pread

    def counted(self: Any, n: int, offset: int) -> bytes:
        got = pread(self, n, offset)
        reads.append(len(got))
        return got

    monkeypatch.setattr(tfrecord.RecordReader, "_pread", counted)
    with tf.Graph().as_default():
        # TF's default read buffer (256 KB): a run of ~1 MB is still one read.
        ds = tf.data.TFRecordDataset(path, buffer_size=256 << 10).batch(500)
        nxt = ds.make_one_shot_iterator().get_next()
        got: list[bytes] = []
        with tf.Session() as sess:
            try:
                while True:
                    got += sess.run(nxt).tolist()
            except tf.errors.OutOfRangeError:
                pass
    assert got == records
    # ~1.6 MB: the first short run, two of ~1 MB (and the read finding the end).
    assert len([n for n in reads if n]) <= 4, reads
