"""Examples parsed from their wire bytes for a whole batch (lib/io/example_wire.py) give
exactly what protobuf parsing gives, or decline (None) so that the general path runs."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.framework import dtypes
from tfcluster.lib.io import example_parser, example_wire
from tfcluster.lib.io.example_parser import FeatureSpec
from tfcluster.protos import example_pb2, feature_pb2


def _feature(kind: str, values: list) -> feature_pb2.Feature:
    if kind == "bytes":
        return feature_pb2.Feature(bytes_list=feature_pb2.BytesList(value=values))
    if kind == "float":
        return feature_pb2.Feature(float_list=feature_pb2.FloatList(value=values))
    return feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=values))


def _example(features: dict[str, tuple[str, list]], deterministic: bool = False) -> bytes:
    ex = example_pb2.Example()
    for key, (kind, values) in features.items():
        ex.features.feature[key].CopyFrom(_feature(kind, values))
    # Deterministic: the features in key order (a map's order is otherwise protobuf's own).
    return ex.SerializeToString(deterministic=deterministic)


def _general(records: list[bytes], specs: list[FeatureSpec]) -> list[np.ndarray]:
    """What the protobuf path gives, value by value."""
    out = []
    for spec in specs:
        builder = example_parser.DenseBuilder(spec, len(records), example_parser.Where(None, True))
        ex = example_pb2.Example()
        for i, r in enumerate(records):
            ex.ParseFromString(r)
            fmap = ex.features.feature
            values = (
                example_parser._typed(fmap[spec.key], spec, builder.where, i, True)
                if spec.key in fmap
                else None
            )
            builder.add(i, values)
        out.append(builder.result())
    return out


SPECS = [
    FeatureSpec("image", dtypes.string, ()),
    FeatureSpec("label", dtypes.int64, ()),
    FeatureSpec("pair", dtypes.int64, (2,)),
    FeatureSpec("weights", dtypes.float32, (3,)),
    FeatureSpec("long", dtypes.int64, (12,)),
    FeatureSpec("names", dtypes.string, (2, 1)),
    FeatureSpec("opt", dtypes.float32, (), np.array(-1.5, dtype=np.float32)),
]


def _random_batch(rng: np.random.Generator, n: int, same_sizes: bool) -> list[bytes]:
    out = []
    for i in range(n):
        label = 5 if same_sizes else int(rng.integers(-(2**62), 2**62))
        features = {
            "image": (
                "bytes",
                [
                    bytes(
                        rng.integers(
                            0, 256, 20 if same_sizes else int(rng.integers(0, 300)), dtype=np.uint8
                        )
                    )
                ],
            ),
            "label": ("int64", [label]),
            "pair": ("int64", [i % 3, -1 if same_sizes else -(i + 1) * 1000]),
            "weights": ("float", rng.standard_normal(3).astype(np.float32).tolist()),
            "long": (
                "int64",
                [int(v) for v in rng.integers(2**35 if same_sizes else -(2**40), 2**36, 12)],
            ),
            "names": ("bytes", [b"ab", b"c" if same_sizes else bytes(int(rng.integers(0, 5)))]),
            "extra": ("float", [1.0, 2.0]),
        }
        if i % 3 or same_sizes:
            features["opt"] = ("float", [float(i)])
        keys = list(features)
        if not same_sizes:
            rng.shuffle(keys)
        out.append(_example({k: features[k] for k in keys}))
    return out


@pytest.mark.parametrize("same_sizes", [True, False], ids=["same-layout", "varied"])
@pytest.mark.parametrize("seed", range(4))
def test_the_wire_path_gives_what_protobuf_gives(
    same_sizes: bool, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(seed)
    records = _random_batch(rng, 37, same_sizes)
    walked = []
    walk = example_wire._walk
    monkeypatch.setattr(example_wire, "_walk", lambda w, s: walked.append(1) or walk(w, s))
    got = example_wire.parse_fixed_dense(records, SPECS)
    # Records of one layout are checked at once; others walked field by field.
    assert bool(walked) is not same_sizes
    assert got is not None
    for a, b, spec in zip(got, _general(records, SPECS), SPECS):
        assert a.dtype == b.dtype and a.shape == b.shape, spec.key
        assert a.tolist() == b.tolist(), spec.key


def test_it_declines_what_it_does_not_read() -> None:
    good = _example({"x": ("float", [1.0])})
    spec = [FeatureSpec("x", dtypes.float32, ())]
    # A float list written unpacked (tag 0x0D per value) is valid protobuf, but not read here.
    unpacked = bytes(
        [
            0x0A,
            0x0E,
            0x0A,
            0x0C,
            0x0A,
            0x01,
            ord("x"),
            0x12,
            0x07,
            0x12,
            0x05,
            0x0D,
            0,
            0,
            0x80,
            0x3F,
        ]
    )
    assert example_wire.parse_fixed_dense([good, unpacked], spec) is None
    # The same key twice (protobuf keeps the last one) goes to the general path too.
    entry = _example({"x": ("float", [2.0])})[2:]
    assert (
        example_wire.parse_fixed_dense([good, good[:1] + bytes([len(entry) * 2]) + entry * 2], spec)
        is None
    )
    # A missing feature without a default, a list of the wrong length, a wrong kind.
    assert example_wire.parse_fixed_dense([good, _example({"y": ("float", [1.0])})], spec) is None
    assert (
        example_wire.parse_fixed_dense([good, _example({"x": ("float", [1.0, 2.0])})], spec) is None
    )
    assert example_wire.parse_fixed_dense([good, _example({"x": ("int64", [1])})], spec) is None
    # Garbage, an empty record.
    assert example_wire.parse_fixed_dense([good, b"\xff\xff\xff"], spec) is None
    assert example_wire.parse_fixed_dense([good, b""], spec) is None


def test_parse_example_takes_the_wire_path_for_big_batches_and_agrees() -> None:
    rng = np.random.default_rng(9)
    records = _random_batch(rng, 64, False)
    serialized = np.empty(len(records), dtype=object)
    serialized[:] = records
    _, dense = example_parser.parse_examples(serialized, [], SPECS)
    for a, b in zip(dense, _general(records, SPECS)):
        assert a.tolist() == b.tolist()


def test_large_records_laid_out_alike_are_read_in_place_and_agree() -> None:
    rng = np.random.default_rng(3)
    specs = [
        FeatureSpec("image", dtypes.string, ()),
        FeatureSpec("label", dtypes.int64, ()),
        FeatureSpec("w", dtypes.float32, (2,)),
    ]
    records = [
        _example(
            {
                "image": ("bytes", [bytes(rng.integers(0, 256, 20000, dtype=np.uint8))]),
                "label": ("int64", [7]),
                "w": ("float", [0.5, float(i)]),
            }
        )
        for i in range(5)
    ]
    got = example_wire.parse_fixed_dense(records, specs)
    assert got is not None
    for a, b in zip(got, _general(records, specs)):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()


def test_batches_of_one_length_in_another_layout_than_before_are_read_right() -> None:
    # A batch laid out as an earlier one is checked against that one's structure; records
    # of the same length with their features in another order are not read at its offsets.
    specs = [FeatureSpec("image", dtypes.string, ()), FeatureSpec("label", dtypes.int64, ())]

    def batch(order: list[str], start: int) -> list[bytes]:
        out = []
        for i in range(start, start + 16):
            features = {"image": ("bytes", [bytes([i]) * 30]), "label": ("int64", [i % 10])}
            out.append(_example({k: features[k] for k in order}))
        return out

    image_first = batch(["image", "label"], 0)
    label_first = batch(["label", "image"], 16)
    assert len(image_first[0]) == len(label_first[0])
    mixed = [r for pair in zip(image_first[:8], label_first[:8]) for r in pair]
    for records in (image_first, label_first, image_first, mixed):
        got = example_wire.parse_fixed_dense(records, specs)
        assert got is not None
        for a, b in zip(got, _general(records, specs)):
            assert a.dtype == b.dtype and a.tolist() == b.tolist()


def test_bytes_values_of_one_layout_keep_their_zero_bytes_and_type() -> None:
    # Records of one length give their bytes values through a [records, length] view of
    # the batch: values that start or end with zero bytes, or are all zeros, or empty,
    # come back whole, as bytes.
    specs = [
        FeatureSpec("image", dtypes.string, ()),
        FeatureSpec("pair", dtypes.string, (2,)),
        FeatureSpec("w", dtypes.float32, (2,)),
    ]
    rng = np.random.default_rng(5)
    records = []
    for i in range(40):
        body = bytes(rng.integers(0, 256, 14, dtype=np.uint8))
        image = [b"\x00" + body + b"\x00\x00", bytes(17), body + bytes(3)][i % 3]
        records.append(
            _example(
                {
                    "image": ("bytes", [image]),
                    "pair": ("bytes", [b"", bytes([i % 7]) + b"\x00"]),
                    "w": ("float", [0.0, float(i) / 3]),
                }
            )
        )
    got = example_wire.parse_fixed_dense(records, specs)
    assert got is not None
    for a, b in zip(got, _general(records, specs)):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tolist() == b.tolist()
    assert {type(v) for v in got[0].ravel()} == {bytes}
    assert {len(v) for v in got[0].ravel()} == {17}


def test_a_batch_matching_a_known_layout_is_read_by_its_readers_and_checked() -> None:
    # The second batch of a layout is read by the readers kept with its template; a value
    # byte that makes a one-byte int64 a longer varint is not read as a value: the batch
    # is declined and the general path gives protobuf's answer.
    specs = [
        FeatureSpec("image", dtypes.string, ()),
        FeatureSpec("label", dtypes.int64, ()),
        FeatureSpec("w", dtypes.float32, (2,)),
    ]

    def batch(start: int) -> list[bytes]:
        return [
            _example(
                {
                    "image": ("bytes", [bytes([i % 256]) * 20]),
                    "label": ("int64", [i % 100]),
                    "w": ("float", [float(i), -float(i) / 4]),
                }
            )
            for i in range(start, start + 24)
        ]

    for start in (0, 24, 48):
        records = batch(start)
        got = example_wire.parse_fixed_dense(records, specs)
        assert got is not None
        for a, b in zip(got, _general(records, specs)):
            assert a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
    records = batch(72)
    label_at = records[3].index(bytes([0x1A, 0x03, 0x0A, 0x01, 75]))  # Int64List [75]
    bad = bytearray(records[3])
    bad[label_at + 4] = 0x80 | 75  # the varint now runs past its field
    records[3] = bytes(bad)
    assert len(records[3]) == len(records[0])
    assert example_wire.parse_fixed_dense(records, specs) is None


def test_a_later_row_differing_in_any_structure_run_of_a_known_layout_is_not_read_there() -> None:
    # A layout's structure bytes lie in several runs (the Example's head and the first
    # feature's key; the last feature's key and lengths): a row of a later batch that
    # differs from the template in any of them, here only in the last feature's key, is
    # not read at the template's offsets. With that feature missing from the record (and
    # no default) the batch is declined, and the general path gives protobuf's error.
    specs = [FeatureSpec("image", dtypes.string, ()), FeatureSpec("label", dtypes.int64, ())]

    def batch(start: int) -> list[bytes]:
        return [
            _example(
                {"image": ("bytes", [bytes([i % 256]) * 40]), "label": ("int64", [i % 10])},
                deterministic=True,
            )
            for i in range(start, start + 20)
        ]

    first = batch(0)
    got = example_wire.parse_fixed_dense(first, specs)
    assert got is not None  # the layout is learned
    records = batch(20)
    key_at, key = max((records[7].index(k), k) for k in (b"image", b"label"))
    assert key_at > 40  # after the other feature's value: not in the first structure run
    records[7] = records[7][:key_at] + key[:4] + b"_" + records[7][key_at + 5 :]
    assert len(records[7]) == len(records[0])
    assert example_wire.parse_fixed_dense(records, specs) is None
