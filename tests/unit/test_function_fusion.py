"""A dataset function's Cast of integers followed by RealDiv or Mul (the product by a constant's
reciprocal TF makes of `x / 255.`) runs as one op that casts and scales in place
(runtime/function_fusion.py, kernels/math.py): the same values bit for bit, and only where the
cast values have no other use. ParseExample strings read only by a DecodeRaw reach it as rows of
bytes: the same values and errors, no string per example; when only a cast to another type reads
the decoded values, the DecodeRaw lends those rows instead of copying them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.framework import dtypes
from tfcluster.runtime.function_fusion import (
    CAST_X_ATTR,
    RAW_ROWS_ATTR,
    RAW_ROWS_INPUT_ATTR,
    RAW_ROWS_LENT_ATTR,
    fuse_cast_into_scaling,
    mark_strings_for_decode_raw,
)
from tfcluster.runtime.graph_ir import Node


def _cast(name: str, src: Any, to: Any = dtypes.float32, control: list[str] | None = None) -> Node:
    return Node(name, "Cast", [("x", 0)], control or [], "", {"SrcT": src, "DstT": to})


def _div(name: str, x: str, y: str = "c", t: Any = dtypes.float32) -> Node:
    return Node(name, "RealDiv", [(x, 0), (y, 0)], [], "", {"T": t})


def _base() -> list[Node]:
    return [Node("x", "Placeholder", [], [], "", {}), Node("c", "Const", [], [], "", {})]


def test_a_cast_read_only_by_a_division_is_absorbed_by_it() -> None:
    nodes = [*_base(), _cast("cast", dtypes.uint8, control=["c"]), _div("div", "cast")]
    fused = fuse_cast_into_scaling(nodes, ["div:0"])
    assert [n.name for n in fused] == ["x", "c", "div"]
    div = fused[-1]
    assert div.op == "RealDiv" and div.inputs == [("x", 0), ("c", 0)]
    assert div.attrs[CAST_X_ATTR] == "float32"
    assert div.control_inputs == ["c"]  # the cast's control inputs stay


def test_a_cast_read_only_by_a_product_is_absorbed_by_it() -> None:
    product = Node("mul", "Mul", [("cast", 0), ("c", 0)], [], "", {"T": dtypes.float32})
    fused = fuse_cast_into_scaling([*_base(), _cast("cast", dtypes.uint8), product], ["mul:0"])
    assert [n.name for n in fused] == ["x", "c", "mul"]
    assert fused[-1].inputs == [("x", 0), ("c", 0)]
    assert fused[-1].attrs[CAST_X_ATTR] == "float32"


def test_a_cast_with_another_use_or_of_another_kind_is_kept() -> None:
    cases = {
        "a result": ([_cast("cast", dtypes.uint8), _div("div", "cast")], ["div:0", "cast:0"]),
        "read twice": (
            [
                _cast("cast", dtypes.uint8),
                _div("div", "cast"),
                Node("n", "Neg", [("cast", 0)], [], "", {}),
            ],
            ["div:0"],
        ),
        "the divisor too": ([_cast("cast", dtypes.uint8), _div("div", "cast", "cast")], ["div:0"]),
        "waited on": (
            [
                _cast("cast", dtypes.uint8),
                _div("div", "cast"),
                Node("n", "NoOp", [], ["cast"], "", {}),
            ],
            ["div:0"],
        ),
        "from floats": ([_cast("cast", dtypes.float64), _div("div", "cast")], ["div:0"]),
        "to another type": (
            [_cast("cast", dtypes.uint8, dtypes.float64), _div("div", "cast")],
            ["div:0"],
        ),
        "the divisor cast": ([_cast("cast", dtypes.uint8), _div("div", "c", "cast")], ["div:0"]),
    }
    for what, (extra, results) in cases.items():
        nodes = [*_base(), *extra]
        fused = fuse_cast_into_scaling(nodes, results)
        assert [n.name for n in fused] == [n.name for n in nodes], what
        assert all(CAST_X_ATTR not in n.attrs for n in fused), what


def _all_elements(ds: Any) -> list[Any]:
    got = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(sess.run(got))
        except tf.errors.OutOfRangeError:
            pass
    return out


def _mapped(fn: Any, values: np.ndarray) -> list[Any]:
    return _all_elements(tf.data.Dataset.from_tensor_slices(values).batch(4).map(fn))


def _scaled(values: np.ndarray, divisor: Any) -> np.ndarray:
    """values / divisor as a dataset function computes it: the product by the constant's
    reciprocal, as TF 1.15's optimizers rewrite it (runtime/constant_folding.py)."""
    divisor = np.asarray(divisor)
    with np.errstate(all="ignore"):
        return values.astype(divisor.dtype) * np.reciprocal(divisor)


def test_mapped_scaling_of_integers_gives_the_cast_then_the_product_bit_for_bit() -> None:
    rng = np.random.default_rng(4)
    images = rng.integers(0, 256, (10, 6), dtype=np.uint8)
    ints = rng.integers(-(2**40), 2**40, (10, 6), dtype=np.int64)
    column = np.array([1.0, 3.0, 7.0, 0.0, -2.5, 255.0], dtype=np.float32)
    for values, divisor in (
        (images, np.float32(255.0)),
        (images, column),  # a divisor per column, broadcast over the batch
        (ints, np.float32(3.0)),  # int64 -> float32 rounds: the cast kernel's rounding
    ):
        got = _mapped(lambda v, d=divisor: tf.cast(v, tf.float32) / d, values)
        want = [_scaled(values[i : i + 4], divisor) for i in range(0, 10, 4)]
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert a.dtype == np.float32 and a.shape == b.shape
            assert a.tobytes() == b.tobytes()


def test_a_divisor_wider_than_the_cast_values_broadcasts_them_as_before() -> None:
    values = np.arange(6, dtype=np.int32).reshape(6, 1)
    divisor = np.array([1.0, 2.0, 4.0], dtype=np.float64)
    got = _mapped(lambda v: tf.cast(v, tf.float64) / divisor, values)
    want = [_scaled(values[i : i + 4], divisor) for i in range(0, 6, 4)]
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.tobytes() == b.tobytes()


def test_cast_values_a_map_also_returns_keep_their_own_array() -> None:
    values = np.arange(8, dtype=np.uint8).reshape(4, 2)

    def fn(v: Any) -> Any:
        cast = tf.cast(v, tf.float32)
        return cast, cast / 2.0

    (cast, half), *_ = _mapped(fn, values)
    assert cast.tolist() == values.astype(np.float32).tolist()
    assert half.tolist() == (values.astype(np.float32) / 2).tolist()


# ---- ParseExample strings read only by a DecodeRaw -----------------------------------------
def _parse_node(nsparse: int = 0, ndense: int = 2) -> Node:
    return Node("parse", "ParseExample", [("x", 0)], [], "", {"Nsparse": nsparse, "Ndense": ndense})


def _decode(name: str, src: tuple[str, int]) -> Node:
    return Node(name, "DecodeRaw", [src], [], "", {"out_type": dtypes.uint8})


def test_parsed_strings_read_only_by_a_decode_raw_are_handed_over_as_rows() -> None:
    # One sparse feature: the dense values follow its three outputs (indices 3 and 4).
    nodes = [*_base(), _parse_node(nsparse=1), _decode("decode", ("parse", 4))]
    marked = {n.name: n for n in mark_strings_for_decode_raw(nodes, ["decode:0"])}
    assert marked["parse"].attrs[RAW_ROWS_ATTR] == [1]
    assert marked["decode"].attrs[RAW_ROWS_INPUT_ATTR] is True
    assert [n.name for n in mark_strings_for_decode_raw(nodes, [])] == [n.name for n in nodes]


def test_parsed_strings_with_another_use_stay_strings() -> None:
    cases = {
        "a result": ([_decode("decode", ("parse", 0))], ["decode:0", "parse:0"]),
        "read twice": (
            [
                _decode("decode", ("parse", 0)),
                Node("n", "StringLength", [("parse", 0)], [], "", {}),
            ],
            ["decode:0"],
        ),
        "two decodes": (
            [_decode("decode", ("parse", 0)), _decode("decode_2", ("parse", 0))],
            ["decode:0", "decode_2:0"],
        ),
        "another reader": ([Node("n", "StringLength", [("parse", 0)], [], "", {})], ["n:0"]),
    }
    for what, (extra, results) in cases.items():
        nodes = [*_base(), _parse_node(), *extra]
        marked = mark_strings_for_decode_raw(nodes, results)
        assert all(RAW_ROWS_ATTR not in n.attrs for n in marked), what
        assert all(RAW_ROWS_INPUT_ATTR not in n.attrs for n in marked), what


def _image_records(n: int, size: int, odd: int | None = None) -> tuple[list[bytes], np.ndarray]:
    """Examples of an image (`size` bytes, `odd` bytes for the record at index 3) and a
    label."""
    rng = np.random.default_rng(11)
    images = rng.integers(0, 256, (n, size), dtype=np.uint8)
    records = []
    for i in range(n):
        image = images[i].tobytes() if odd is None or i != 3 else bytes(odd)
        feature = {
            "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        records.append(example.SerializeToString())
    return records, images


def _decoded_batches(records: list[bytes], out_type: Any, little: bool = True) -> list[Any]:
    features = {
        "image": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
    }

    def parse(serialized: Any) -> Any:
        f = tf.parse_single_example(serialized, features)
        return tf.decode_raw(f["image"], out_type, little_endian=little), f["label"]

    # map then batch: the map runs as its batched form, ParseExample -> DecodeRaw.
    return _all_elements(tf.data.Dataset.from_tensor_slices(records).map(parse).batch(8))


def test_mapped_decode_raw_of_parsed_images_takes_their_rows_without_a_string_each(
    monkeypatch: Any,
) -> None:
    from tfcluster.lib.io import example_wire

    made: list[int] = []
    real = example_wire._BytesReader.__call__

    def counting(self: Any, rows: np.ndarray) -> np.ndarray:
        made.append(len(rows))
        return real(self, rows)

    monkeypatch.setattr(example_wire._BytesReader, "__call__", counting)
    records, images = _image_records(20, 24)
    for out_type, little in ((tf.uint8, True), (tf.float32, True), (tf.int16, False)):
        batches = _decoded_batches(records, out_type, little)
        dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little else ">")
        want = images.view(dtype).astype(out_type.as_numpy_dtype)
        got = np.concatenate([b[0] for b in batches])
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        assert got.flags.writeable
        assert np.concatenate([b[1] for b in batches]).tolist() == [i % 10 for i in range(20)]
    assert made == []  # no bytes object per image


def test_mapped_decode_raw_of_parsed_images_keeps_tfs_errors() -> None:
    records, _ = _image_records(20, 18)
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 18 that is not a multiple"):
        _decoded_batches(records, tf.float32)
    # An image of another length: each element decodes, the batch of them fails (as TF's
    # element-by-element map).
    records, _ = _image_records(20, 24, odd=20)
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 3 had shape \\[20\\]"):
        _decoded_batches(records, tf.uint8)


# ---- decoded values read only by a cast to another type ------------------------------------
def _image_parse_and_decode() -> list[Node]:
    return [*_base(), _parse_node(), _decode("decode", ("parse", 0))]


def test_decoded_rows_read_only_by_a_cast_to_another_type_are_lent() -> None:
    absorbing = Node(
        "div",
        "RealDiv",
        [("decode", 0), ("c", 0)],
        [],
        "",
        {"T": dtypes.float32, CAST_X_ATTR: "float32"},
    )
    cast = Node(
        "cast", "Cast", [("decode", 0)], [], "", {"SrcT": dtypes.uint8, "DstT": dtypes.float32}
    )
    for reader in (absorbing, cast):
        nodes = [*_image_parse_and_decode(), reader]
        marked = {n.name: n for n in mark_strings_for_decode_raw(nodes, [f"{reader.name}:0"])}
        assert marked["decode"].attrs[RAW_ROWS_INPUT_ATTR] is True
        assert marked["decode"].attrs[RAW_ROWS_LENT_ATTR] is True, reader.op


def test_decoded_rows_with_another_use_are_copied() -> None:
    same_type = Node(
        "cast", "Cast", [("decode", 0)], [], "", {"SrcT": dtypes.uint8, "DstT": dtypes.uint8}
    )
    plain_div = Node("div", "RealDiv", [("decode", 0), ("c", 0)], [], "", {"T": dtypes.float32})
    divisor = Node(
        "div",
        "RealDiv",
        [("c", 0), ("decode", 0)],
        [],
        "",
        {"T": dtypes.float32, CAST_X_ATTR: "float32"},
    )
    cast = Node(
        "cast", "Cast", [("decode", 0)], [], "", {"SrcT": dtypes.uint8, "DstT": dtypes.float32}
    )
    cases = {
        "a result": ([cast], ["cast:0", "decode:0"]),
        "read twice": ([cast, Node("n", "Neg", [("decode", 0)], [], "", {})], ["cast:0", "n:0"]),
        "waited on": ([cast, Node("n", "NoOp", [], ["decode"], "", {})], ["cast:0"]),
        "a cast to its own type": ([same_type], ["cast:0"]),
        "a division that casts nothing": ([plain_div], ["div:0"]),
        "the divisor of one that does": ([divisor], ["div:0"]),
    }
    for what, (extra, results) in cases.items():
        nodes = [*_image_parse_and_decode(), *extra]
        marked = {n.name: n for n in mark_strings_for_decode_raw(nodes, results)}
        assert marked["decode"].attrs.get(RAW_ROWS_INPUT_ATTR) is True, what
        assert RAW_ROWS_LENT_ATTR not in marked["decode"].attrs, what


def test_a_lending_decode_raw_hands_over_a_view_of_the_rows_and_others_a_copy() -> None:
    from tfcluster.kernels.parsing import decode_raw

    records = np.arange(4 * 12, dtype=np.uint8).reshape(4, 12)
    rows = records[:, 2:10]  # the image bytes at one offset of each record
    for out_type, lend, shared in (
        (dtypes.uint8, True, True),
        (dtypes.int16, True, True),
        (dtypes.uint8, False, False),
    ):
        attrs: dict[str, Any] = {"out_type": out_type, RAW_ROWS_INPUT_ATTR: True}
        if lend:
            attrs[RAW_ROWS_LENT_ATTR] = True
        compute = decode_raw(Node("decode", "DecodeRaw", [("parse", 0)], [], "", attrs), np)
        (values,) = compute(None, [rows])
        want = np.ascontiguousarray(rows).view(out_type.as_numpy_dtype)
        assert values.dtype == want.dtype and values.tobytes() == want.tobytes()
        assert np.shares_memory(values, rows) is shared
        if not shared:
            assert values.flags.writeable


def test_mapped_scaling_of_decoded_images_gives_the_same_floats_in_a_writable_array() -> None:
    features = {
        "image": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
    }

    def parse(serialized: Any) -> Any:
        f = tf.parse_single_example(serialized, features)
        image = tf.cast(tf.decode_raw(f["image"], tf.uint8), tf.float32) / 255.0
        return image, tf.cast(f["label"], tf.int32)

    records, images = _image_records(20, 24)
    batches = _all_elements(tf.data.Dataset.from_tensor_slices(records).map(parse).batch(8))
    got = np.concatenate([b[0] for b in batches])
    want = _scaled(images, np.float32(255.0))
    assert got.dtype == np.float32 and got.tobytes() == want.tobytes()
    assert all(b[0].flags.writeable for b in batches)
    assert np.concatenate([b[1] for b in batches]).tolist() == [i % 10 for i in range(20)]
