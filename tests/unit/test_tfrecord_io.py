"""TFRecord files: tfcluster reads what TensorFlow wrote (plain, GZIP, ZLIB), TensorFlow
read back what tfcluster wrote (recorded in tests/tf_reference/data/records.json), and bad
files fail with TF's error classes, naming the file and offset."""

from __future__ import annotations

import gzip
import os
import struct
import zlib

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import records_cases as cases
from tf_reference import reference
from tfcluster.lib.io import tfrecord

AREA = "records"


def tf_file(name: str) -> str:
    return os.path.join(cases.RECORDS_DIR, name)


def read(path: str, kind: str = "") -> list[bytes]:
    return list(tf.python_io.tf_record_iterator(path, tf.python_io.TFRecordOptions(kind)))


def test_reads_the_records_tensorflow_wrote_plain_gzip_and_zlib() -> None:
    expected = reference.case(AREA, "iterate_plain")["records"]
    assert len(expected) == cases.NUM_EXAMPLES
    for kind, name in cases.TF_WRITTEN.items():
        assert read(tf_file(name), kind) == expected
    for kind in ("GZIP", "ZLIB"):
        assert reference.case(AREA, f"iterate_{kind}")["same_as_plain"] is True
    assert (
        list(tf.io.tf_record_iterator(tf_file(cases.SEQUENCES_FILE)))
        == reference.case(AREA, "iterate_sequences")["records"]
    )


def test_writes_byte_for_byte_what_tensorflow_writes() -> None:
    records = reference.case(AREA, "iterate_plain")["records"]
    for kind, name in cases.TF_WRITTEN.items():
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tfc-{os.getpid()}-{name}")
        try:
            with tf.python_io.TFRecordWriter(out, tf.python_io.TFRecordOptions(kind)) as w:
                for r in records:
                    w.write(r)
            with open(out, "rb") as f, open(tf_file(name), "rb") as g:
                assert f.read() == g.read(), kind
        finally:
            os.unlink(out)


def test_files_tfcluster_wrote_are_read_back_by_tensorflow(tmp_path) -> None:
    """The committed tfcluster_* files are what tfcluster writes for these records, and TF
    read them: same records in every compression, same features as written."""
    records = read(tf_file(cases.TFCLUSTER_WRITTEN[""]))
    for kind, name in cases.TFCLUSTER_WRITTEN.items():
        assert read(tf_file(name), kind) == records
        again = tmp_path / name
        with tf.io.TFRecordWriter(str(again), kind) as w:
            for r in records:
                w.write(r)
        with open(tf_file(name), "rb") as f:
            assert again.read_bytes() == f.read(), kind
        if kind:
            assert reference.case(AREA, f"tf_reads_tfcluster_{kind}")["same_as_plain"] is True
    tf_saw = reference.case(AREA, "tf_reads_tfcluster_plain")["features"]
    assert len(tf_saw) == cases.NUM_EXAMPLES
    kinds = {"bytes": "bytes_list", "float": "float_list", "int64": "int64_list"}
    for i, seen in enumerate(tf_saw):
        written = cases.example_features(i)
        assert set(seen) == set(written)
        for key, (kind, values) in written.items():
            seen_kind, seen_values = seen[key]
            assert seen_kind == kinds[kind]
            if kind == "bytes":
                assert list(seen_values) == values
            else:
                np.testing.assert_array_equal(
                    seen_values,
                    np.asarray(values, dtype=np.float32 if kind == "float" else np.int64),
                )
    sequences = list(tf.io.tf_record_iterator(tf_file(cases.TFCLUSTER_SEQUENCES_FILE)))
    assert len(sequences) == reference.case(AREA, "tf_reads_tfcluster_sequences")["count"]


def test_corrupt_record_is_data_loss_naming_file_and_offset() -> None:
    recorded = reference.case(AREA, "corrupt_record")
    assert reference.error_class(recorded["error"]) == "DataLossError"
    path = tf_file(cases.CORRUPT_FILE)
    got = []
    with pytest.raises(tf.errors.DataLossError) as e:
        for r in tf.python_io.tf_record_iterator(path):
            got.append(r)
    assert len(got) == 1  # the records before the bad one come out first, as in TF
    assert f"corrupted record at {recorded['offset']}" in str(e.value)
    assert recorded["error"]["message"] == f"corrupted record at {recorded['offset']}"
    assert path in str(e.value)


def test_truncated_file_is_data_loss_naming_file_and_offset() -> None:
    recorded = reference.case(AREA, "truncated_file")
    assert reference.error_class(recorded["error"]) == "DataLossError"
    assert recorded["error"]["message"].startswith(f"truncated record at {recorded['offset']}")
    path = tf_file(cases.TRUNCATED_FILE)
    with pytest.raises(tf.errors.DataLossError) as e:
        read(path)
    assert f"truncated record at {recorded['offset']}" in str(e.value)
    assert path in str(e.value)


def test_missing_file_is_not_found_as_in_tensorflow() -> None:
    recorded = reference.case(AREA, "missing_file")
    assert reference.error_class(recorded["error"]) == "NotFoundError"
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        read(tf_file("no-such-file.tfrecord"))
    with pytest.raises(tf.errors.NotFoundError):
        tf.python_io.TFRecordWriter("/no/such/dir/x.tfrecord")


def test_a_bad_record_raises_again_rather_than_skipping_ahead() -> None:
    reader = tfrecord.RecordReader(tf_file(cases.CORRUPT_FILE))
    assert len(reader.read_batch(10)) == 1
    for _ in range(2):
        with pytest.raises(tf.errors.DataLossError):
            reader.read_batch(10)
    reader.close()


def test_a_torn_header_at_the_end_ends_the_file_as_in_tensorflow(tmp_path) -> None:
    path = tmp_path / "torn.tfrecord"
    path.write_bytes(tfrecord.encode(b"abc") + tfrecord.encode(b"defg")[:7])
    assert read(str(path)) == [b"abc"]


def test_a_corrupt_length_is_reported_at_its_record_without_reading_on(tmp_path) -> None:
    data = bytearray(tfrecord.encode(b"first") + tfrecord.encode(b"second"))
    second = len(tfrecord.encode(b"first"))
    data[second : second + 8] = struct.pack("<Q", 1 << 50)  # header crc no longer matches
    path = tmp_path / "badlen.tfrecord"
    path.write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match=f"corrupted record at {second} "):
        read(str(path))


def test_offsets_and_batches_across_buffer_refills(tmp_path) -> None:
    rng = np.random.default_rng(0)
    records = [rng.bytes(int(n)) for n in rng.integers(0, 200_000, size=40)]
    for kind in ("", "GZIP", "ZLIB"):
        path = str(tmp_path / f"many{kind}.tfrecord")
        w = tfrecord.RecordWriter(path, kind)
        for r in records:
            w.write(r)
        w.close()
        reader = tfrecord.RecordReader(path, kind, buffer_size=1)  # refills every record
        offsets = []
        got = []
        while (item := reader.read_with_offset()) is not None:
            got.append(item[0])
            offsets.append(item[1])
        assert got == records
        expected = np.cumsum([0] + [len(r) + 16 for r in records[:-1]])
        assert offsets == expected.tolist()
        reader = tfrecord.RecordReader(path, kind)
        sizes = []
        while batch := reader.read_batch(7):
            sizes.append(len(batch))
        assert sizes == [7] * 5 + [5]


def test_big_records_read_on_their_own_keep_offsets_and_errors(tmp_path) -> None:
    # Records of 64 KiB and more are read from plain files straight into their own bytes.
    rng = np.random.default_rng(1)
    records = [rng.bytes(int(n)) for n in (10, 300_000, 70_000, 5, 100_000, 100_000, 0)]
    path = str(tmp_path / "big.tfrecord")
    w = tfrecord.RecordWriter(path)
    for r in records:
        w.write(r)
    w.close()
    for chunk in (None, 1):
        reader = tfrecord.RecordReader(path, buffer_size=chunk)
        got = []
        while (item := reader.read_with_offset()) is not None:
            got.append(item)
        assert [r for r, _ in got] == records
        expected = np.cumsum([0] + [len(r) + 16 for r in records[:-1]])
        assert [o for _, o in got] == expected.tolist()
    assert read(path) == records
    second = len(tfrecord.encode(records[0]))
    data = bytearray((tmp_path / "big.tfrecord").read_bytes())
    data[second + 12 + 1000] ^= 1
    corrupt = tmp_path / "big-corrupt.tfrecord"
    corrupt.write_bytes(bytes(data))
    truncated = tmp_path / "big-truncated.tfrecord"
    truncated.write_bytes(bytes(data[: second + 12 + 200_000]))
    for chunk in (None, 1):  # in the buffer, and read on its own
        reader = tfrecord.RecordReader(str(corrupt), buffer_size=chunk)
        assert reader.read_batch(5) == records[:1]
        for _ in range(2):  # and again: the reader stays at the bad record
            with pytest.raises(
                tf.errors.DataLossError, match=f"corrupted record at {second + 12} "
            ):
                reader.read_batch(5)
        reader.close()
        reader = tfrecord.RecordReader(str(truncated), buffer_size=chunk)
        assert reader.read_batch(5) == records[:1]
        with pytest.raises(tf.errors.DataLossError, match=f"truncated record at {second} ") as e:
            reader.read_batch(5)
        reader.close()
    assert str(truncated) in str(e.value)


def test_compressed_files_are_standard_gzip_and_zlib_streams(tmp_path) -> None:
    path = str(tmp_path / "x.tfrecord")
    for kind, decompress in (("GZIP", gzip.decompress), ("ZLIB", zlib.decompress)):
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(kind)) as w:
            w.write(b"hello")
            w.flush()
            w.write("world")
        with open(path, "rb") as f:
            raw = decompress(f.read())
        assert raw == tfrecord.encode(b"hello") + tfrecord.encode(b"world")


def test_options_compression_level_and_strings_as_tensorflow() -> None:
    recorded = reference.case(AREA, "compression_strings")["values"]
    TFO, TFC = tf.python_io.TFRecordOptions, tf.python_io.TFRecordCompressionType
    ours = [
        TFO.get_compression_type_string(o)
        for o in (None, "", "GZIP", "ZLIB", TFC.GZIP, TFC.ZLIB, TFC.NONE, TFO(TFC.ZLIB))
    ]
    assert ours == list(recorded)
    assert reference.error_class(reference.case(AREA, "bad_compression")["error"]) == "ValueError"
    with pytest.raises(ValueError, match='Not a valid compression_type: "LZ4"'):
        TFO("LZ4")


def test_compression_level_reaches_the_stream(tmp_path) -> None:
    sizes = {}
    for level in (0, 9):
        path = str(tmp_path / f"l{level}.tfrecord")
        options = tf.io.TFRecordOptions("ZLIB", compression_level=level)
        with tf.io.TFRecordWriter(path, options) as w:
            w.write(b"a" * 10_000)
        sizes[level] = os.path.getsize(path)
        assert read(path, "ZLIB") == [b"a" * 10_000]
    assert sizes[0] > 10_000 > 100 > sizes[9]


def test_corrupt_compressed_stream_is_data_loss(tmp_path) -> None:
    path = tmp_path / "bad.gz"
    path.write_bytes(b"this is not gzip at all")
    with pytest.raises(tf.errors.DataLossError, match=str(path)):
        read(str(path), "GZIP")
