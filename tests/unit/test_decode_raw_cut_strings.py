"""decode_raw of the byte strings parse_example cut from fixed-size records (one offset in
every record) takes their bytes as one block (lib/io/cut_strings.py): the values are those
of decoding each string, in either byte order, and other string columns decode as before."""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.lib.io import cut_strings


def _records(n: int, size: int) -> tuple[list[bytes], list[bytes]]:
    rng = np.random.default_rng(7)
    payloads = [rng.integers(0, 256, size, dtype=np.uint8).tobytes() for _ in range(n)]
    records = []
    for i, p in enumerate(payloads):
        feature = {
            "raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[p])),
            "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 100])),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        records.append(example.SerializeToString())
    return records, payloads


def _decode_parsed(records: list[bytes], out_type: Any, little: bool) -> np.ndarray:
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [None])
        parsed = tf.parse_example(
            serialized,
            {
                "raw": tf.FixedLenFeature([], tf.string),
                "id": tf.FixedLenFeature([], tf.int64),
            },
        )
        decoded = tf.decode_raw(parsed["raw"], out_type, little_endian=little)
        with tf.Session() as sess:
            return sess.run(decoded, {serialized: records})


@pytest.mark.parametrize(
    ("out_type", "little"),
    [(tf.uint8, True), (tf.float32, True), (tf.int16, False), (tf.float64, False)],
)
def test_strings_cut_from_fixed_size_records_decode_as_each_string(
    out_type: Any, little: bool, monkeypatch: Any
) -> None:
    hits: list[bool] = []
    real = cut_strings.rows_of

    def counting(column: object) -> Any:
        got = real(column)
        hits.append(got is not None)
        return got

    monkeypatch.setattr(cut_strings, "rows_of", counting)
    records, payloads = _records(40, 48)
    got = _decode_parsed(records, out_type, little)
    dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little else ">")
    want = np.stack([np.frombuffer(p, dtype=dtype) for p in payloads]).astype(
        out_type.as_numpy_dtype
    )
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    assert hits == [True]  # the parsed column came as one block
    assert got.flags.writeable and got.flags.c_contiguous


def test_a_size_that_is_not_a_multiple_of_the_type_keeps_tfs_error() -> None:
    records, _ = _records(20, 18)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a multiple of 4"):
        _decode_parsed(records, tf.float32, True)


def test_a_column_is_forgotten_with_its_array() -> None:
    column = np.empty(2, dtype=object)
    column[:] = [b"ab", b"cd"]
    rows = np.frombuffer(b"abcd", dtype=np.uint8).reshape(2, 2)
    cut_strings.remember(column, rows)
    assert cut_strings.rows_of(column) is rows
    other = np.empty(2, dtype=object)
    other[:] = [b"ab", b"cd"]
    assert cut_strings.rows_of(other) is None
    key = id(column)
    del column
    gc.collect()
    assert key not in cut_strings._ROWS
