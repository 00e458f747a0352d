"""Cases of tf.RaggedTensor and tf.ragged (factories and their validation, conversions to and
from dense and sparse tensors, row partition accessors, __getitem__, tf.ragged.* functions,
reductions and element-wise ops dispatched on ragged operands, and the ragged tf.strings
ops), run on TensorFlow 1.15 by record_ragged.py and on tfcluster by
tests/unit/test_tf_reference_ragged.py.

A case returns a RaggedTensor as its parts (flat values, then each level's row splits,
outermost first), so values, dtypes and tensor names are compared part by part. STATIC
lists what is compared without running (static shapes, dtypes, ragged ranks) and what a
session gives back for a fetched RaggedTensor.

Runs on Python 3.7 too (TF 1.15's recorder)."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book
except ImportError:  # imported as tf_reference.cases_ragged by the tests
    from tf_reference.casebook import Book

BOOK = Book()
add = BOOK.add

VALUES = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32)
SPLITS = np.array([0, 2, 2, 5, 6], dtype=np.int64)
NO_NAMES = "tfcluster builds this from other ops than TF's (other internal op names)"


def parts(rt: Any) -> tuple:
    """A RaggedTensor as (flat_values, row_splits, inner row_splits...)."""
    return (rt.flat_values, *rt.nested_row_splits)


def _rt(tf: Any, t: dict) -> Any:
    return tf.RaggedTensor.from_row_splits(t["v"], t["s"])


def dense_grad(tf: Any, y: Any, x: Any) -> Any:
    """d sum(y * w) / dx as a dense tensor (w: 1 .. 7 repeating, so every element counts)."""
    w = tf.cast(tf.floormod(tf.range(tf.size(y)), 7) + 1, y.dtype)
    g = tf.gradients(tf.reduce_sum(tf.reshape(y, [-1]) * w), x)[0]
    return tf.identity(tf.convert_to_tensor(g), name="dense_grad")


def _strings(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


# ---- factories ----------------------------------------------------------------------------


@add("from_row_splits", {"v": VALUES, "s": SPLITS}, grad=("dense", ("v",)))
def _from_row_splits(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    return {"rt": parts(rt), "dense": rt.to_tensor()}


@add("from_row_splits_int32_splits", {"v": VALUES, "s": SPLITS.astype(np.int32)})
def _from_row_splits_int32(tf: Any, t: dict) -> dict:
    return {"rt": parts(_rt(tf, t))}


@add("from_row_lengths", {"v": VALUES, "n": np.array([2, 0, 3, 1], np.int64)})
def _from_row_lengths(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_row_lengths(t["v"], t["n"])
    return {"rt": parts(rt), "lengths": rt.row_lengths()}


@add(
    "from_value_rowids_with_nrows",
    {"v": VALUES, "ids": np.array([0, 0, 2, 2, 2, 3])},
)
def _from_value_rowids(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_value_rowids(t["v"], t["ids"], nrows=6)
    return {"rt": parts(rt), "ids": rt.value_rowids(), "nrows": rt.nrows()}


@add(
    "from_value_rowids_inferred_nrows",
    {"v": VALUES, "ids": np.array([1, 1, 1, 2, 4, 4])},
)
def _from_value_rowids_inferred(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_value_rowids(t["v"], t["ids"]))}


@add(
    "from_row_starts",
    {"v": VALUES, "s": np.array([0, 2, 2, 5], np.int64)},
)
def _from_row_starts(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_row_starts(t["v"], t["s"])
    return {"rt": parts(rt), "starts": rt.row_starts(), "limits": rt.row_limits()}


@add(
    "from_row_limits",
    {"v": VALUES, "s": np.array([2, 2, 5, 6], np.int64)},
)
def _from_row_limits(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_row_limits(t["v"], t["s"]))}


@add(
    "from_nested_row_splits",
    {"v": VALUES, "a": np.array([0, 3, 4]), "b": np.array([0, 1, 1, 4, 6])},
    grad=("dense", ("v",)),
)
def _from_nested_row_splits(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_nested_row_splits(t["v"], [t["a"], t["b"]])
    return {"rt": parts(rt), "dense": rt.to_tensor(-1.0)}


@add(
    "from_nested_row_lengths",
    {"v": VALUES, "a": np.array([2, 1]), "b": np.array([1, 0, 5])},
)
def _from_nested_row_lengths(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_nested_row_lengths(t["v"], [t["a"], t["b"]])
    return {"rt": parts(rt), "lengths": rt.nested_row_lengths()}


@add(
    "from_nested_value_rowids",
    {"v": VALUES, "a": np.array([0, 0, 1]), "b": np.array([0, 0, 2, 2, 2, 2])},
)
def _from_nested_value_rowids(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_nested_value_rowids(t["v"], [t["a"], t["b"]], [3, 3])
    return {"rt": parts(rt)}


for _tag, _splits in (
    ("not_starting_at_zero", [1, 2, 6]),
    ("decreasing", [0, 4, 2, 6]),
    ("not_ending_at_nvals", [0, 2, 5]),
):
    add("bad_row_splits_" + _tag, {"v": VALUES, "s": np.array(_splits, np.int64)})(
        lambda tf, t: {"rt": parts(_rt(tf, t))}
    )


@add("bad_row_lengths_sum", {"v": VALUES, "n": np.array([2, 2], np.int64)})
def _bad_row_lengths(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_row_lengths(t["v"], t["n"]))}


@add("bad_value_rowids_decreasing", {"v": VALUES, "ids": np.array([0, 2, 1, 2, 2, 3])})
def _bad_value_rowids(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_value_rowids(t["v"], t["ids"]))}


@add("bad_row_splits_rank", {"v": VALUES, "s": np.array([[0, 6]], np.int64)})
def _bad_splits_rank(tf: Any, t: dict) -> dict:
    return {"rt": parts(_rt(tf, t))}


# ---- conversions --------------------------------------------------------------------------

DENSE = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [3.0, 0.0, 4.0]], np.float32)


@add("to_tensor_default_value", {"v": VALUES, "s": SPLITS})
def _to_tensor_default(tf: Any, t: dict) -> dict:
    return {"dense": _rt(tf, t).to_tensor(default_value=9.0)}


@add(
    "to_tensor_inner_dims",
    {"v": VALUES.reshape(3, 2), "s": np.array([0, 1, 1, 3])},
    grad=("dense", ("v",)),
)
def _to_tensor_inner(tf: Any, t: dict) -> dict:
    return {"dense": _rt(tf, t).to_tensor()}


@add("from_tensor", {"x": DENSE}, grad=("rt.0", ("x",)))
def _from_tensor(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_tensor(t["x"]))}


@add(
    "from_tensor_lengths",
    {"x": DENSE, "n": np.array([2, 0, 5], np.int64)},
    grad=("rt.0", ("x",)),
)
def _from_tensor_lengths(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_tensor(t["x"], lengths=t["n"]))}


@add("from_tensor_padding", {"x": DENSE})
def _from_tensor_padding(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_tensor(t["x"], padding=0.0))}


@add(
    "from_tensor_ragged_rank_2",
    {"x": np.arange(12, dtype=np.int32).reshape(2, 3, 2)},
)
def _from_tensor_rr2(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_tensor(t["x"], ragged_rank=2))}


@add("to_sparse", {"v": VALUES, "s": SPLITS})
def _to_sparse(tf: Any, t: dict) -> dict:
    st = _rt(tf, t).to_sparse()
    return {"st": (st.indices, st.values, st.dense_shape)}


@add(
    "to_sparse_nested_with_inner_dims",
    {
        "v": np.arange(8, dtype=np.int32).reshape(4, 2),
        "a": np.array([0, 1, 3]),
        "b": np.array([0, 2, 2, 4]),
    },
)
def _to_sparse_nested(tf: Any, t: dict) -> dict:
    st = tf.RaggedTensor.from_nested_row_splits(t["v"], [t["a"], t["b"]]).to_sparse()
    return {"st": (st.indices, st.values, st.dense_shape)}


@add(
    "from_sparse",
    {
        "i": np.array([[0, 0], [0, 1], [2, 0]], np.int64),
        "v": np.array([1, 2, 3], np.int32),
        "d": np.array([4, 3], np.int64),
    },
)
def _from_sparse(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.RaggedTensor.from_sparse(tf.SparseTensor(t["i"], t["v"], t["d"])))}


@add("accessors", {"v": VALUES, "s": SPLITS})
def _accessors(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    return {
        "nrows": rt.nrows(),
        "nrows32": rt.nrows(out_type=tf.int32),
        "lengths": rt.row_lengths(),
        "rowids": rt.value_rowids(),
        "bbox": rt.bounding_shape(),
        "bbox1": rt.bounding_shape(axis=1),
        "with_values": parts(rt.with_values(rt.values * 2.0)),
        "int32": parts(rt.with_row_splits_dtype(tf.int32)),
    }


# ---- __getitem__ -------------------------------------------------------------------------

for _tag, _key in (
    ("row", 2),
    ("negative_row", -1),
    ("rows", slice(1, None)),
    ("rows_to", slice(None, 3)),
    ("rows_stepped", slice(None, None, 2)),
    ("columns_from", (slice(None), slice(1, None))),
    ("columns_to_negative", (slice(None), slice(None, -1))),
    ("row_then_column", (2, 1)),
    ("ellipsis", (Ellipsis, slice(1, None))),
):
    add("getitem_" + _tag, {"v": VALUES, "s": SPLITS})(
        (lambda key: lambda tf, t: {"out": _item(_rt(tf, t)[key])})(_key)
    )


def _item(x: Any) -> Any:
    return parts(x) if hasattr(x, "nested_row_splits") else x


@add("getitem_inner_ragged_index_error", {"v": VALUES, "s": SPLITS})
def _getitem_error(tf: Any, t: dict) -> dict:
    return {"out": _item(_rt(tf, t)[:, 0])}


@add(
    "getitem_nested",
    {"v": VALUES, "a": np.array([0, 3, 4]), "b": np.array([0, 1, 1, 4, 6])},
)
def _getitem_nested(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_nested_row_splits(t["v"], [t["a"], t["b"]])
    return {"first": _item(rt[0]), "tail": _item(rt[1:]), "inner": _item(rt[0, 1:])}


# ---- gather (the RaggedGather op) ----------------------------------------------------------


@add("gather_rows", {"v": VALUES, "s": SPLITS, "i": np.array([3, 0, 0, 2], np.int32)})
def _gather_rows(tf: Any, t: dict) -> dict:
    rows = tf.gather(_rt(tf, t), t["i"])
    return {"rows": parts(rows), "grad": dense_grad(tf, rows.flat_values, t["v"])}


@add(
    "gather_nested_and_2d_indices",
    {
        "v": VALUES,
        "a": np.array([0, 3, 4]),
        "b": np.array([0, 1, 1, 4, 6]),
        "i": np.array([[1, 0], [1, 1]], np.int64),
    },
)
def _gather_2d(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_nested_row_splits(t["v"], [t["a"], t["b"]])
    grid = tf.gather(rt, t["i"])
    return {"grid": parts(grid), "grad": dense_grad(tf, grid.flat_values, t["v"])}


@add("gather_ragged_indices", {"v": VALUES, "s": SPLITS})
def _gather_ragged_indices(tf: Any, t: dict) -> dict:
    indices = tf.ragged.constant([[3, 1], [], [0]])
    return {"rows": parts(tf.gather(_rt(tf, t), indices))}


@add("gather_out_of_range", {"v": VALUES, "s": SPLITS, "i": np.array([1, 4], np.int32)})
def _gather_out_of_range(tf: Any, t: dict) -> dict:
    return {"rows": parts(tf.gather(_rt(tf, t), t["i"]))}


@add("getitem_stepped_gradient", {"v": VALUES, "s": SPLITS})
def _getitem_grad(tf: Any, t: dict) -> dict:
    dense = _rt(tf, t)[::2, 1:].to_tensor()
    return {"dense": dense, "grad": dense_grad(tf, dense, t["v"])}


@add("to_sparse_gradient", {"v": VALUES, "s": SPLITS}, grad=("values", ("v",)))
def _to_sparse_grad(tf: Any, t: dict) -> dict:
    return {"values": _rt(tf, t).to_sparse().values * 3.0}


# ---- tf.ragged ---------------------------------------------------------------------------


@add("constant", {})
def _constant(tf: Any, t: dict) -> dict:
    return {
        "flat": parts(tf.ragged.constant([[1, 2], [], [3]])),
        "nested": parts(tf.ragged.constant([[[1.5, 2.0], [3.0]], [[4.0]]])),
        "inner": parts(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)),
        "typed": parts(tf.ragged.constant([["a"], ["b", "c"]], name="words")),
        "int32_splits": parts(tf.ragged.constant([[1], [2, 3]], row_splits_dtype=tf.int32)),
        "dense": tf.ragged.constant([1, 2]),
        "floats": parts(tf.ragged.constant([[1, 2]], dtype=tf.float64)),
    }


@add("constant_mixed_depth_error", {})
def _constant_error(tf: Any, t: dict) -> dict:
    return {"x": parts(tf.ragged.constant([[1, [2]]]))}


@add("range", {"a": np.array([0, 5, 2], np.int32), "b": np.array([3, 1, 8], np.int32)})
def _range(tf: Any, t: dict) -> dict:
    return {
        "limits": parts(tf.ragged.range(t["b"])),
        "starts_limits": parts(tf.ragged.range(t["a"], t["b"])),
        "negative_delta": parts(tf.ragged.range(t["a"], t["b"], -2)),
        "deltas": parts(tf.ragged.range(t["a"], 10, t["b"])),
        "float": parts(tf.ragged.range([0.5, 1.0], 2.0, 0.3)),
        "int32_splits": parts(tf.ragged.range(t["b"], row_splits_dtype=tf.int32)),
    }


@add("range_zero_delta", {"a": np.array([0, 5], np.int32)})
def _range_zero(tf: Any, t: dict) -> dict:
    return {"x": parts(tf.ragged.range(t["a"], 10, 0))}


@add(
    "segment_ids",
    {"s": np.array([0, 3, 3, 5, 6], np.int64), "ids": np.array([0, 0, 2, 2, 2, 4], np.int64)},
)
def _segment_ids(tf: Any, t: dict) -> dict:
    return {
        "ids": tf.ragged.row_splits_to_segment_ids(t["s"]),
        "ids32": tf.ragged.row_splits_to_segment_ids(t["s"], out_type=tf.int32),
        "splits": tf.ragged.segment_ids_to_row_splits(t["ids"]),
        "splits_n": tf.ragged.segment_ids_to_row_splits(t["ids"], num_segments=7),
    }


@add("map_flat_values", {"v": VALUES, "s": SPLITS})
def _map_flat_values(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    return {
        "ones": parts(tf.ragged.map_flat_values(tf.ones_like, rt)),
        "mul": parts(tf.ragged.map_flat_values(tf.multiply, rt, rt)),
        "dense_arg": parts(tf.ragged.map_flat_values(tf.add, rt, 10.0)),
    }


@add("boolean_mask", {"v": VALUES, "s": SPLITS})
def _boolean_mask(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    dense = tf.constant([[1, 2, 3], [4, 5, 6]])
    return {
        "ragged_mask": parts(tf.ragged.boolean_mask(rt, rt > 2.5)),
        "row_mask": parts(tf.ragged.boolean_mask(rt, [True, False, True, True])),
        "dense_2d": parts(tf.ragged.boolean_mask(dense, [[True, False, True], [False] * 3])),
        "dense_1d": tf.ragged.boolean_mask(dense, [False, True]),
    }


@add("stack_and_concat", {"v": VALUES, "s": SPLITS})
def _stack_concat(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    other = tf.ragged.constant([[7.0], [8.0, 9.0], [], [10.0]])
    dense = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    return {
        "stack0": parts(tf.ragged.stack([rt, other])),
        "stack1": parts(tf.ragged.stack([rt, other], axis=1)),
        "concat0": parts(tf.concat([rt, other], axis=0)),
        "concat1": parts(tf.concat([rt, other], axis=1)),
        "concat_dense": parts(tf.concat([rt, dense], axis=1)),
        "stack_tf": parts(tf.stack([rt, other])),
    }


@add(
    "stack_dynamic_partitions",
    {"d": np.array([10, 20, 30, 40, 50], np.int32), "p": np.array([2, 0, 2, 3, 0], np.int32)},
)
def _stack_dynamic_partitions(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.ragged.stack_dynamic_partitions(t["d"], t["p"], 4))}


@add(
    "stack_dynamic_partitions_out_of_range",
    {"d": np.array([1, 2], np.int32), "p": np.array([0, 5], np.int32)},
)
def _sdp_error(tf: Any, t: dict) -> dict:
    return {"rt": parts(tf.ragged.stack_dynamic_partitions(t["d"], t["p"], 3))}


@add("expand_dims_size_rank", {"v": VALUES, "s": SPLITS})
def _expand_dims(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    nested = tf.ragged.constant([[[1, 2]], [[3], []]])
    return {
        "axis0": parts(tf.expand_dims(rt, 0)),
        "axis1": parts(tf.expand_dims(rt, 1)),
        "axis2": parts(tf.expand_dims(rt, axis=2)),
        "nested_last": parts(tf.expand_dims(nested, -1)),
        "size": tf.size(rt),
        "size64": tf.size(nested, out_type=tf.int64),
        "rank": tf.rank(nested),
    }


# ---- math on ragged operands --------------------------------------------------------------


@add("reductions", {"v": VALUES, "s": SPLITS})
def _reductions(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    return {
        "sum": tf.reduce_sum(rt),
        "sum0": tf.reduce_sum(rt, axis=0),
        "sum1": tf.reduce_sum(rt, axis=1),
        "sum_neg": tf.reduce_sum(rt, axis=-1),
        "sum_both": tf.reduce_sum(rt, axis=[0, 1]),
        "mean1": tf.reduce_mean(rt, axis=1),
        "mean0": tf.reduce_mean(rt, axis=0),
        "max1": tf.reduce_max(rt, axis=1),
        "min0": tf.reduce_min(rt, axis=0),
        "prod1": tf.reduce_prod(rt, axis=1),
        "any1": tf.reduce_any(rt > 4.5, axis=1),
        "all1": tf.reduce_all(rt > 1.5, axis=1),
        "math_sum": tf.math.reduce_sum(rt, 1),
    }


@add(
    "reductions_ragged_rank_2",
    {"v": VALUES, "a": np.array([0, 3, 4]), "b": np.array([0, 1, 1, 4, 6])},
    grad=("sum0.0", ("v",)),
)
def _reductions_rr2(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_nested_row_splits(t["v"], [t["a"], t["b"]])
    return {
        "sum0": parts(tf.reduce_sum(rt, axis=0)),
        "max1": parts(tf.reduce_max(rt, axis=1)),
        "sum2": parts(tf.reduce_sum(rt, axis=2)),
        "mean_all": tf.reduce_mean(rt),
        "sum_tensor_axis": parts(tf.reduce_sum(rt, axis=tf.constant(1))),
        "sum_12": tf.reduce_sum(rt, axis=[1, 2]),
    }


@add("reduce_keepdims_error", {"v": VALUES, "s": SPLITS})
def _reduce_keepdims(tf: Any, t: dict) -> dict:
    return {"sum": tf.reduce_sum(_rt(tf, t), axis=1, keepdims=True)}


@add(
    "reduce_sum_gradient",
    {"v": VALUES, "s": SPLITS},
    grad=("sum1", ("v",)),
)
def _reduce_grad(tf: Any, t: dict) -> dict:
    return {"sum1": tf.reduce_sum(_rt(tf, t) * 2.0, axis=1)}


@add(
    "reduce_inner_dims",
    {"v": VALUES.reshape(3, 2), "s": np.array([0, 2, 2, 3])},
)
def _reduce_inner(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    return {"sum2": parts(tf.reduce_sum(rt, axis=2)), "sum1": tf.reduce_sum(rt, axis=1)}


@add(
    "elementwise",
    {"v": VALUES, "s": SPLITS},
    grad=("mul.0", ("v",)),
    notes="TF broadcasts two ragged operands through RaggedTile ops first (their names)",
)
def _elementwise(tf: Any, t: dict) -> dict:
    rt = _rt(tf, t)
    return {
        "plus": parts(rt + 1.0),
        "rplus": parts(2.0 + rt),
        "mul": parts(rt * rt),
        "neg": parts(-rt),
        "sub": parts(rt - 0.5),
        "div": parts(rt / 2.0),
        "pow": parts(rt**2.0),
        "gt": parts(rt > 3.0),
        "add": parts(tf.add(rt, rt)),
        "square": parts(tf.square(rt)),
        "cast": parts(tf.cast(rt, tf.int32)),
        "maximum": parts(tf.maximum(rt, 3.0)),
        "abs": parts(abs(rt - 3.0)),
        "add_n": parts(tf.add_n([rt, rt, rt])),
    }


@add(
    "elementwise_mismatched_splits",
    {"v": VALUES, "s": SPLITS},
    notes="TF 1.15 broadcasts the operands' ragged shapes (RaggedTile) and adds the flat "
    "values under x's row splits: the check of y's row lengths is never run",
)
def _elementwise_mismatch(tf: Any, t: dict) -> dict:
    other = tf.RaggedTensor.from_row_splits(t["v"], [0, 1, 2, 5, 6])
    return {"sum": parts(_rt(tf, t) + other)}


# ---- strings -----------------------------------------------------------------------------

WORDS = _strings(["h\u00e9llo".encode(), b"ab", b"", "\u4e00x".encode()])
BROKEN = _strings([b"a\xffb", b"\xc3", b"ok"])


@add("unicode_decode", {"x": WORDS})
def _unicode_decode(tf: Any, t: dict) -> dict:
    return {"cp": parts(tf.strings.unicode_decode(t["x"], "UTF-8"))}


@add("unicode_decode_broken_replace", {"x": BROKEN})
def _unicode_decode_broken(tf: Any, t: dict) -> dict:
    return {
        "replace": parts(tf.strings.unicode_decode(t["x"], "UTF-8")),
        "ignore": parts(tf.strings.unicode_decode(t["x"], "UTF-8", errors="ignore")),
        "question": parts(tf.strings.unicode_decode(t["x"], "UTF-8", replacement_char=63)),
    }


@add("unicode_decode_strict_error", {"x": BROKEN})
def _unicode_decode_strict(tf: Any, t: dict) -> dict:
    return {"cp": parts(tf.strings.unicode_decode(t["x"], "UTF-8", errors="strict"))}


@add("unicode_decode_2d_and_scalar", {"x": WORDS.reshape(2, 2)})
def _unicode_decode_2d(tf: Any, t: dict) -> dict:
    return {
        "grid": parts(tf.strings.unicode_decode(t["x"], "UTF-8")),
        "scalar": tf.strings.unicode_decode(t["x"][0, 0], "UTF-8"),
    }


@add("unicode_decode_with_offsets", {"x": WORDS})
def _unicode_decode_offsets(tf: Any, t: dict) -> dict:
    cp, off = tf.strings.unicode_decode_with_offsets(t["x"], "UTF-8")
    return {"cp": parts(cp), "offsets": parts(off)}


@add("unicode_decode_utf16", {"x": _strings([b"\x00a\xd8=\xde\x00", b"\x00h\x00i"])})
def _unicode_decode_utf16(tf: Any, t: dict) -> dict:
    cp, off = tf.strings.unicode_decode_with_offsets(t["x"], "UTF-16-BE")
    return {"cp": parts(cp), "offsets": parts(off)}


@add("unicode_split", {"x": WORDS})
def _unicode_split(tf: Any, t: dict) -> dict:
    chars, off = tf.strings.unicode_split_with_offsets(t["x"], "UTF-8")
    return {
        "chars": parts(tf.strings.unicode_split(t["x"], "UTF-8")),
        "chars2": parts(chars),
        "offsets": parts(off),
    }


@add("bytes_split", {"x": WORDS})
def _bytes_split(tf: Any, t: dict) -> dict:
    return {"b": parts(tf.strings.bytes_split(t["x"]))}


@add("split_ragged_result", {"x": _strings([b"a b  c", b"", b"de f"])})
def _split_ragged(tf: Any, t: dict) -> dict:
    return {
        "ws": parts(tf.strings.split(t["x"], result_type="RaggedTensor")),
        "sep": parts(tf.strings.split(t["x"], sep=" ", result_type="RaggedTensor")),
    }


@add(
    "ngrams_ragged",
    {"x": _strings([b"a", b"b", b"c", b"d", b"e"]), "s": np.array([0, 3, 3, 5], np.int64)},
)
def _ngrams_ragged(tf: Any, t: dict) -> dict:
    # (TF 1.15's StringNGrams reads the previous row's strings when padding an empty row, a
    # bug fixed in 2.x; the padded case has no empty row.)
    rt = tf.RaggedTensor.from_row_splits(t["x"], t["s"])
    full = tf.RaggedTensor.from_row_splits(t["x"], [0, 3, 5])
    return {
        "bigrams": parts(tf.strings.ngrams(rt, 2)),
        "padded": parts(tf.strings.ngrams(full, [1, 3], pad_values="#", separator="_")),
    }


@add(
    "unicode_encode_ragged",
    {"v": np.array([104, 233, 108, 97, 98], np.int32), "s": np.array([0, 3, 3, 5], np.int64)},
)
def _unicode_encode_ragged(tf: Any, t: dict) -> dict:
    rt = tf.RaggedTensor.from_row_splits(t["v"], t["s"])
    return {
        "utf8": tf.strings.unicode_encode(rt, "UTF-8"),
        "utf16": tf.strings.unicode_encode(rt, "UTF-16-BE"),
    }


# ---- static properties and fetched values ------------------------------------------------


def _static_from_row_splits(tf: Any) -> Any:
    return tf.RaggedTensor.from_row_splits(VALUES, SPLITS)


def _static_nested(tf: Any) -> Any:
    return tf.ragged.constant([[[1, 2], [3]], [[4]]])


def _static_inner(tf: Any) -> Any:
    return tf.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)


def _static_placeholder(tf: Any) -> Any:
    return tf.ragged.placeholder(tf.int32, 2, [3])


def _static_from_tensor(tf: Any) -> Any:
    return tf.RaggedTensor.from_tensor(tf.zeros([4, 5, 2]))


def _static_decode(tf: Any) -> Any:
    return tf.strings.unicode_decode(["ab", "c"], "UTF-8")


def _static_range(tf: Any) -> Any:
    return tf.ragged.range([1, 2, 3])


def _static_to_tensor(tf: Any) -> Any:
    return tf.ragged.constant([[1, 2], [3]]).to_tensor()


def _static_reduce(tf: Any) -> Any:
    return tf.reduce_sum(tf.ragged.constant([[1, 2], [3]]), axis=1)


STATIC = {
    "from_row_splits": _static_from_row_splits,
    "nested_constant": _static_nested,
    "inner_shape_constant": _static_inner,
    "placeholder": _static_placeholder,
    "from_tensor": _static_from_tensor,
    "unicode_decode": _static_decode,
    "range": _static_range,
    "to_tensor": _static_to_tensor,
    "reduce_sum": _static_reduce,
}


def spec_facts(tf: Any) -> dict:
    """tf.RaggedTensorSpec's properties, compatibility and merging."""
    graph = tf.Graph()
    with graph.as_default():
        spec = tf.RaggedTensorSpec([2, None, 3], tf.int32, ragged_rank=1)
        default = tf.RaggedTensorSpec([None, None])
        value = tf.ragged.constant([[[1, 2, 3]], []], ragged_rank=1)
        other = tf.RaggedTensorSpec([5, None, 3], tf.int32, ragged_rank=1)
        # (TF 1.15's spec keeps these private; 2.x made them properties.)
        return {
            "repr": repr(spec),
            "shape": str(spec._shape),
            "dtype": spec._dtype.name,
            "ragged_rank": spec._ragged_rank,
            "row_splits_dtype": spec._row_splits_dtype.name,
            "default": [str(default._shape), default._dtype.name, default._ragged_rank],
            "compatible_value": spec.is_compatible_with(value),
            "compatible_other": spec.is_compatible_with(other),
            "compatible_dense_spec": spec.is_compatible_with(tf.TensorSpec([2, 3], tf.int32)),
            "merged": str(spec.most_specific_compatible_type(other)._shape),
            "equal": spec == tf.RaggedTensorSpec([2, None, 3], tf.int32, 1),
            "value_type": spec.value_type.__name__,
        }


def describe(tf: Any, build: Any) -> dict:
    """What is known of a ragged (or dense) result before running it."""
    graph = tf.Graph()
    with graph.as_default():
        x = build(tf)
        out = {
            "type": type(x).__name__,
            "shape": str(x.shape),
            "dtype": x.dtype.name,
        }
        if hasattr(x, "ragged_rank"):
            out["ragged_rank"] = x.ragged_rank
            out["splits_shapes"] = [str(s.shape) for s in x.nested_row_splits]
            out["values_shape"] = str(x.flat_values.shape)
            out["names"] = [x.flat_values.name] + [s.name for s in x.nested_row_splits]
        return out


def fetch_and_feed(tf: Any) -> dict:
    """A session's answer for a fetched RaggedTensor, and a fed ragged placeholder."""
    graph = tf.Graph()
    with graph.as_default():
        rt = tf.ragged.constant([[[1, 2], [3]], [[4]], []])
        ph = tf.ragged.placeholder(tf.float32, 1, [])
        doubled = ph * 2.0
        with tf.Session() as sess:
            value = sess.run(rt)
            fed = sess.run(doubled, {ph: tf.ragged.constant_value([[1.5], [], [2.0, 3.0]])})
    return {
        "type": type(value).__name__,
        "list": value.to_list(),
        "ragged_rank": value.ragged_rank,
        "splits": [s.tolist() for s in value.nested_row_splits],
        "values_dtype": str(value.flat_values.dtype),
        "splits_dtype": str(value.row_splits.dtype),
        "str": str(value),
        "fed_list": fed.to_list(),
        "fed_type": type(fed).__name__,
    }


def constant_values(tf: Any) -> dict:
    """tf.ragged.constant_value's numpy results."""
    a = tf.ragged.constant_value([[1, 2], [3]])
    b = tf.ragged.constant_value([[1.0], [2.0, 3.0]], dtype="float32", row_splits_dtype="int32")
    c = tf.ragged.constant_value([[[1, 2]], [[3, 4]]], ragged_rank=1)
    return {
        "a": [a.to_list(), str(a.values.dtype), str(a.row_splits.dtype), a.ragged_rank],
        "b": [b.to_list(), str(b.values.dtype), str(b.row_splits.dtype)],
        "c": [c.to_list(), list(c.values.shape), c.ragged_rank],
        "dense": tf.ragged.constant_value([1, 2]).tolist(),
    }
