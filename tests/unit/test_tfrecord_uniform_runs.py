"""Runs of records of one length are read as the items of one strided view of the file's
buffer: every byte comes back, zero bytes at either end included, and records of another
length after the run are read as before."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.io import tfrecord


def test_records_of_one_length_keep_their_zero_bytes(tmp_path: Any) -> None:
    records = [bytes([0, i % 256, 0]) + bytes(5) for i in range(300)]
    records[7] = bytes(8)  # all zero bytes
    records[8] = b"\xff" * 8
    records += [b"longer record", b"", b"x"]
    path = str(tmp_path / "zeros.tfrecord")
    w = tfrecord.RecordWriter(path)
    for r in records:
        w.write(r)
    w.close()
    reader = tfrecord.RecordReader(path)
    got: list[bytes] = []
    while True:
        batch = reader.read_batch(64)
        if not batch:
            break
        assert all(type(r) is bytes for r in batch)
        got += batch
    assert got == records


def test_a_run_of_empty_records_reads_as_empty_bytes(tmp_path: Any) -> None:
    records = [b""] * 40 + [b"end"]
    path = str(tmp_path / "empty.tfrecord")
    w = tfrecord.RecordWriter(path)
    for r in records:
        w.write(r)
    w.close()
    assert tfrecord.RecordReader(path).read_batch(100) == records
