"""The V2 tensor bundle and its table, below the Saver: what TF's SaveV2 writes, byte for
byte (the slices of a partitioned variable included), and damaged files as DataLossError."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tfcluster.framework.tensor_bundle import bundle, checksum, slices, table

PARTS = os.path.join(reference.DATA_DIR, "tf_files", "tf", "parts", "parts")


def test_masked_crc32c_is_leveldbs() -> None:
    assert checksum.value(b"123456789") == 0xE3069283
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert checksum.unmask(checksum.mask(crc)) == crc
    assert checksum.mask(0) == 0xA282EAD8


@pytest.mark.parametrize(
    ("start", "limit", "expected"),
    [
        (b"abc", b"abe", b"abd"),
        (b"abc", b"abd", b"abc"),  # no byte fits between
        (b"ab", b"abc", b"ab"),  # a prefix is left alone
        (b"a\xff", b"b", b"a\xff"),
        (b"foo/bar", b"goo", b"foo/bar"),
        (b"aaa", b"zzz", b"b"),
    ],
)
def test_shortest_separator(start: bytes, limit: bytes, expected: bytes) -> None:
    sep = table.shortest_separator(start, limit)
    assert sep == expected
    assert start <= sep < limit


def test_short_successor() -> None:
    assert table.short_successor(b"abc") == b"b"
    assert table.short_successor(b"\xff\xffx") == b"\xff\xffy"
    assert table.short_successor(b"\xff\xff") == b"\xff\xff"


def test_a_table_of_many_blocks_reads_back() -> None:
    builder = table.TableBuilder(block_size=256)
    entries = [(f"key{i:05d}".encode(), os.urandom(i % 50)) for i in range(2000)]
    for k, v in entries:
        builder.add(k, v)
    raw = builder.finish()
    assert raw[-8:] == (table.MAGIC).to_bytes(8, "little")
    assert table.read_table(raw, "t") == entries
    with pytest.raises(ValueError, match="increasing order"):
        builder = table.TableBuilder()
        builder.add(b"b", b"")
        builder.add(b"a", b"")


@pytest.mark.parametrize("where", [10, 0.5, -8, -1])
def test_a_damaged_table_is_data_loss_naming_the_file(where: float) -> None:
    builder = table.TableBuilder()
    for i in range(50):
        builder.add(f"k{i:03d}".encode(), b"v" * i)
    raw = bytearray(builder.finish())
    pos = int(len(raw) * where) if isinstance(where, float) else where
    raw[pos] ^= 0x40
    with pytest.raises(tf.errors.DataLossError, match=r"some/file\.index"):
        table.read_table(bytes(raw), "some/file.index")
    with pytest.raises(tf.errors.DataLossError, match="too short"):
        table.read_table(b"short", "some/file.index")


def test_slice_keys_are_tfs_ordered_codes() -> None:
    assert slices.encode_key("emb", ((0, 4), (0, -1))) == b"\x00emb\x00\x01\x01\x02\x80\x84\x80\x7f"
    # A 0 byte in the name is escaped; numbers past one byte carry their length in the high
    # bits of the first bytes (110xxxxx for two bytes, 1110xxxx for three; negatives inverted).
    key = slices.encode_key("a\x00b", ((100, 70000), (-200, 5)))
    assert key == b"\x00a\x00\xffb\x00\x01\x01\x02\xc0\x64\xe1\x11\x70\x3f\x38\x85"
    assert slices.parse_shape_and_slice("10 4 0,4:-") == ([10, 4], ((0, 4), (0, -1)))
    assert slices.parse_shape_and_slice("") is None
    assert slices.slice_spec_string([10, 4], ((4, 3), (0, -1))) == "10 4 4,3:-"
    with pytest.raises(ValueError, match="Can't parse"):
        slices.parse_shape_and_slice("10 x 0,4")


def test_a_partitioned_variable_is_written_as_tfs_slices(tmp_path: os.PathLike) -> None:
    """TF's checkpoint of emb (3 parts of a [10, 4] variable) and `plain`: the same bytes."""
    rec = reference.case("tf_files", "partitioned")
    full = rec["full"]
    tensors = []
    for _, spec in rec["parts"]:
        shape, extents = slices.parse_shape_and_slice(spec)  # type: ignore[misc]
        value = np.array(full[slices.index(shape, extents)])
        tensors.append(bundle.TensorToSave("emb", value, shape, extents))
    tensors.append(bundle.TensorToSave("plain", np.float32(3.0)))
    prefix = os.path.join(str(tmp_path), "parts")
    bundle.write_bundle(prefix, [tensors])
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as a, open(PARTS + suffix, "rb") as b:
            assert a.read() == b.read(), suffix
    reader = bundle.BundleReader(prefix)
    np.testing.assert_array_equal(reader.get_tensor("emb"), full)
    np.testing.assert_array_equal(reader.read_slice("emb", ((3, 5), (1, 2))), full[3:8, 1:3])
    assert reader.tensor_keys() == ["emb", "plain"]


def test_strings_and_every_numeric_dtype_round_trip(tmp_path: os.PathLike) -> None:
    values = {
        "f16": np.arange(3, dtype=np.float16),
        "c64": np.array([1 + 2j], np.complex64),
        "c128": np.array([3 - 1j], np.complex128),
        "u16": np.array([65535], np.uint16),
        "u64": np.array([2**63], np.uint64),
        "i8": np.array([-1, 2], np.int8),
        "empty": np.zeros([0, 5], np.float32),
        "s": np.array([[b"x" * 300, b""], [b"\xff", b"y"]], dtype=object),
    }
    prefix = os.path.join(str(tmp_path), "all")
    bundle.write_bundle(prefix, [[bundle.TensorToSave(k, v) for k, v in values.items()]])
    reader = bundle.BundleReader(prefix)
    for key, value in values.items():
        got = reader.get_tensor(key)
        assert got.shape == value.shape and got.dtype == value.dtype, key
        np.testing.assert_array_equal(got, value)


def test_a_missing_shard_or_key_is_not_found(tmp_path: os.PathLike) -> None:
    prefix = os.path.join(str(tmp_path), "m")
    bundle.write_bundle(prefix, [[bundle.TensorToSave("a", np.ones(3))]])
    reader = bundle.BundleReader(prefix)
    with pytest.raises(tf.errors.NotFoundError, match="Key b not found in checkpoint"):
        reader.get_tensor("b")
    os.remove(bundle.data_filename(prefix, 0, 1))
    with pytest.raises(tf.errors.NotFoundError, match="data file not found"):
        reader.get_tensor("a")
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        bundle.BundleReader(os.path.join(str(tmp_path), "nothing"))


def test_merging_bundles_is_merge_v2_checkpoints(tmp_path: os.PathLike) -> None:
    d = str(tmp_path)
    parts = [os.path.join(d, "tmp", f"part-{i:05d}-of-00002") for i in range(2)]
    bundle.write_bundle(parts[0], [[bundle.TensorToSave("b", np.ones(2, np.float32))]])
    bundle.write_bundle(parts[1], [[bundle.TensorToSave("a", np.arange(3))]])
    bundle.merge_bundles(parts, os.path.join(d, "merged"))
    direct = os.path.join(d, "direct")
    bundle.write_bundle(
        direct,
        [
            [bundle.TensorToSave("b", np.ones(2, np.float32))],
            [bundle.TensorToSave("a", np.arange(3))],
        ],
    )
    for suffix in (".index", ".data-00000-of-00002", ".data-00001-of-00002"):
        with open(os.path.join(d, "merged") + suffix, "rb") as a, open(direct + suffix, "rb") as b:
            assert a.read() == b.read()
    assert not any(p.endswith(".index") for p in os.listdir(os.path.join(d, "tmp")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tensor keyed by a"):
        bundle.write_bundle(
            os.path.join(d, "dup"),
            [[bundle.TensorToSave("a", np.ones(1))], [bundle.TensorToSave("a", np.ones(1))]],
        )
