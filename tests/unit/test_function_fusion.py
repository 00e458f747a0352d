"""A dataset function's Cast of integers followed by RealDiv runs as one RealDiv that casts
and divides in place (runtime/function_fusion.py, kernels/math.py): the same values bit for
bit, and only where the cast values have no other use."""

from __future__ import annotations

from typing import Any

import numpy as np
import tfcluster as tf
from tfcluster.framework import dtypes
from tfcluster.runtime.function_fusion import CAST_X_ATTR, fuse_cast_into_divide
from tfcluster.runtime.graph_ir import Node


def _cast(name: str, src: Any, to: Any = dtypes.float32, control: list[str] | None = None) -> Node:
    return Node(name, "Cast", [("x", 0)], control or [], "", {"SrcT": src, "DstT": to})


def _div(name: str, x: str, y: str = "c", t: Any = dtypes.float32) -> Node:
    return Node(name, "RealDiv", [(x, 0), (y, 0)], [], "", {"T": t})


def _base() -> list[Node]:
    return [Node("x", "Placeholder", [], [], "", {}), Node("c", "Const", [], [], "", {})]


def test_a_cast_read_only_by_a_division_is_absorbed_by_it() -> None:
    nodes = [*_base(), _cast("cast", dtypes.uint8, control=["c"]), _div("div", "cast")]
    fused = fuse_cast_into_divide(nodes, ["div:0"])
    assert [n.name for n in fused] == ["x", "c", "div"]
    div = fused[-1]
    assert div.op == "RealDiv" and div.inputs == [("x", 0), ("c", 0)]
    assert div.attrs[CAST_X_ATTR] == "float32"
    assert div.control_inputs == ["c"]  # the cast's control inputs stay


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
        fused = fuse_cast_into_divide(nodes, results)
        assert [n.name for n in fused] == [n.name for n in nodes], what
        assert all(CAST_X_ATTR not in n.attrs for n in fused), what


def _mapped(fn: Any, values: np.ndarray) -> list[Any]:
    ds = tf.data.Dataset.from_tensor_slices(values).batch(4).map(fn)
    got = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(sess.run(got))
        except tf.errors.OutOfRangeError:
            pass
    return out


def test_mapped_scaling_of_integers_gives_the_cast_then_the_quotient_bit_for_bit() -> None:
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
        with np.errstate(all="ignore"):
            want = [values[i : i + 4].astype(np.float32) / divisor for i in range(0, 10, 4)]
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert a.dtype == np.float32 and a.shape == b.shape
            assert a.tobytes() == b.tobytes()


def test_a_divisor_wider_than_the_cast_values_broadcasts_them_as_before() -> None:
    values = np.arange(6, dtype=np.int32).reshape(6, 1)
    divisor = np.array([1.0, 2.0, 4.0], dtype=np.float64)
    got = _mapped(lambda v: tf.cast(v, tf.float64) / divisor, values)
    want = [values[i : i + 4].astype(np.float64) / divisor for i in range(0, 6, 4)]
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
