"""Cases of TF 1.15's remaining top-level array and dtype names (broadcast_to, repeat, meshgrid,
unravel_index, identity_n, parallel_stack, batch_gather, ensure_shape, bitcast, fingerprint,
sparse_matmul, the static helpers, uint32/uint64/complex128), run on TensorFlow by
record_array_extras.py and on tfcluster by tests/unit/test_tf_reference_array_extras.py."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_array_extras by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

I32 = np.int32
ROW = values((1, 3), seed=1)
MATRIX = values((2, 3), seed=2)


# ---- broadcasting -------------------------------------------------------------------------
@add("broadcast_to_rows", {"x": ROW}, grad=("y", ("x",)))
def _broadcast_to(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.broadcast_to(t["x"], [4, 3]),
        "lead": tf.broadcast_to(t["x"][0], [2, 2, 3]),
        "int64_shape": tf.broadcast_to(t["x"], tf.constant([2, 3], tf.int64)),
    }


@add(
    "broadcast_to_gradient_over_leading_and_unit_dims",
    {"x": values((3, 1), seed=3)},
    grad=("y", ("x",)),
)
def _broadcast_to_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.broadcast_to(t["x"], [2, 3, 4])}


@add("broadcast_to_dynamic_shape", {"x": ROW}, grad=("y", ("x",)), unknown_shapes=True)
def _broadcast_to_dyn(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.broadcast_to(t["x"], tf.stack([2, tf.shape(t["x"])[1]]))}


@add("broadcast_to_incompatible_fails_at_build", {"x": MATRIX})
def _broadcast_to_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.broadcast_to(t["x"], [4, 3])}


@add("broadcast_to_incompatible_fails_at_run", {"x": MATRIX}, unknown_shapes=True)
def _broadcast_to_bad_run(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.broadcast_to(t["x"], [4, 3])}


@add("broadcast_shapes", {"a": np.array([2, 1, 3], I32), "b": np.array([4, 1], I32)})
def _broadcast_shapes(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    static = tf.broadcast_static_shape(tf.TensorShape([2, 1, 3]), tf.TensorShape([4, 1]))
    return {
        "dynamic": tf.broadcast_dynamic_shape(t["a"], t["b"]),
        "static": tf.constant(static.as_list()),
        "unknown": tf.constant(
            [
                -1 if d is None else d
                for d in tf.broadcast_static_shape(
                    tf.TensorShape([None, 1]), tf.TensorShape([5])
                ).as_list()
            ]
        ),
    }


@add(
    "broadcast_dynamic_shape_incompatible_fails_at_run",
    {"a": np.array([2, 3], I32), "b": np.array([4], I32)},
    unknown_shapes=True,
)
def _broadcast_dynamic_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.broadcast_dynamic_shape(t["a"], t["b"])}


@add("broadcast_static_shape_incompatible_fails_at_build", {})
def _broadcast_static_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    shape = tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))
    return {"y": tf.constant(shape.as_list())}


# ---- repeat, meshgrid ---------------------------------------------------------------------
@add("repeat_vector_repeats", {"x": MATRIX}, grad=("rows", ("x",)))
def _repeat(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "rows": tf.repeat(t["x"], [1, 3], axis=0),
        "cols": tf.repeat(t["x"], [2, 0, 1], axis=1),
        "negative_axis": tf.repeat(t["x"], [1, 1, 2], axis=-1),
    }


_SCALAR_REPEAT_NAMES = (
    "TF 2.x reshapes a scalar `repeats` first (Repeat/Reshape_1 is its result); TF 1.15 does "
    "not (Repeat/Reshape): test_repeat_with_scalar_repeats_has_tf115_names checks 1.15's names"
)


@add("repeat_scalar_repeats", {"x": MATRIX}, names=False, notes=_SCALAR_REPEAT_NAMES)
def _repeat_scalar(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"scalar": tf.repeat(t["x"], 2, axis=1), "flat": tf.repeat(t["x"], 2)}


@add(
    "repeat_scalar_gradient",
    {"x": MATRIX},
    grad=("y", ("x",)),
    names=False,
    notes=_SCALAR_REPEAT_NAMES,
)
def _repeat_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.repeat(t["x"], 3, axis=1)}


@add("repeat_wrong_count_fails_at_build", {"x": MATRIX})
def _repeat_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.repeat(t["x"], [1, 2, 3], axis=0)}


@add(
    "meshgrid_xy_and_ij",
    {"a": np.array([1, 2, 3], I32), "b": np.array([4, 5], I32), "c": np.array([6, 7], I32)},
)
def _meshgrid(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "xy": tf.meshgrid(t["a"], t["b"]),
        "ij": tf.meshgrid(t["a"], t["b"], indexing="ij"),
        "xy3": tf.meshgrid(t["a"], t["b"], t["c"]),
        "one": tf.meshgrid(t["a"]),
    }


@add(
    "meshgrid_gradient",
    {"a": values((3,), seed=4), "b": values((2,), seed=5)},
    grad=("xy.1", ("a", "b")),
)
def _meshgrid_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"xy": tf.meshgrid(t["a"], t["b"])}


@add("meshgrid_bad_indexing_fails_at_build", {"a": np.array([1, 2], I32)})
def _meshgrid_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.meshgrid(t["a"], t["a"], indexing="ji")}


# ---- index and identity ops ----------------------------------------------------------------
@add("unravel_index", {"flat": np.array([0, 5, 11], I32), "dims": np.array([3, 4], I32)})
def _unravel(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "vector": tf.unravel_index(t["flat"], t["dims"]),
        "scalar": tf.unravel_index(7, t["dims"]),
        "int64": tf.unravel_index(tf.constant([3, 4], tf.int64), tf.constant([2, 3], tf.int64)),
    }


@add(
    "unravel_index_out_of_bounds_fails_at_run",
    {"flat": np.array([12], I32), "dims": np.array([3, 4], I32)},
)
def _unravel_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.unravel_index(t["flat"], t["dims"])}


@add("identity_n", {"x": MATRIX, "i": np.array([1, 2], I32)}, grad=("y.0", ("x",)))
def _identity_n(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.identity_n([t["x"], t["i"]]), "named": tf.identity_n([t["i"]], name="ids")}


@add("parallel_stack", {"a": values((2,), seed=6), "b": values((2,), seed=7)})
def _parallel_stack(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.parallel_stack([t["a"], t["b"], t["a"]])}


@add(
    "parallel_stack_unknown_shape_fails_at_build", {"a": values((2,), seed=6)}, unknown_shapes=True
)
def _parallel_stack_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.parallel_stack([t["a"], t["a"]])}


@add(
    "batch_gather",
    {"p": values((2, 3, 2), seed=8), "i": np.array([[2, 0], [1, 1]], I32)},
    grad=("y", ("p",)),
    names=False,
    notes="TF builds batch_gather from a dozen ops; tfcluster's is one GatherV2 with batch_dims",
)
def _batch_gather(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.batch_gather(t["p"], t["i"])}


@add("ensure_shape", {"x": MATRIX}, grad=("y", ("x",)))
def _ensure_shape(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.ensure_shape(t["x"], [None, 3])
    return {"y": y, "static": tf.constant([-1 if d is None else d for d in y.shape.as_list()])}


@add("ensure_shape_mismatch_fails_at_build", {"x": MATRIX})
def _ensure_shape_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.ensure_shape(t["x"], [3, 2])}


@add("ensure_shape_mismatch_fails_at_run", {"x": MATRIX}, unknown_shapes=True)
def _ensure_shape_bad_run(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.ensure_shape(t["x"], [3, None])}


@add("guarantee_const", {"x": MATRIX})
def _guarantee_const(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.guarantee_const(t["x"])}


# ---- bitcast -------------------------------------------------------------------------------
@add(
    "bitcast_narrower_wider_same",
    {
        "f": np.array([1.0, -2.5], np.float32),
        "b": np.array([[0, 0, 128, 63]], np.uint8),
        "q": np.array([1, -1], np.int64),
    },
)
def _bitcast(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "to_bytes": tf.bitcast(t["f"], tf.uint8),
        "to_float": tf.bitcast(t["b"], tf.float32),
        "same_size": tf.bitcast(t["q"], tf.float64),
        "unsigned": tf.bitcast(t["q"], tf.uint64),
        "halves": tf.bitcast(t["f"], tf.int16),
        "complex": tf.bitcast(tf.bitcast(t["q"], tf.float32), tf.complex64),
    }


@add("bitcast_wrong_last_dimension_fails_at_build", {"b": np.zeros((2, 3), np.uint8)})
def _bitcast_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.bitcast(t["b"], tf.float32)}


@add(
    "bitcast_wrong_last_dimension_fails_at_run",
    {"b": np.zeros((2, 3), np.uint8)},
    unknown_shapes=True,
)
def _bitcast_bad_run(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.bitcast(t["b"], tf.float32)}


@add("bitcast_bool_fails_at_build", {"b": np.array([True])})
def _bitcast_bool(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.bitcast(t["b"], tf.uint8)}


# ---- fingerprint, timestamp ---------------------------------------------------------------
@add(
    "fingerprint",
    {
        "s": np.array([b"", b"a", b"hello world"], object),
        "s2": np.array([[b"ab", b"c"], [b"", b"xyz"]], object),
        "i": np.arange(12, dtype=I32).reshape(3, 4),
        "f": np.array([1.5, -2.0], np.float32),
    },
)
def _fingerprint(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "strings": tf.fingerprint(t["s"]),
        "string_rows": tf.fingerprint(t["s2"]),
        "int_rows": tf.fingerprint(t["i"]),
        "floats": tf.fingerprint(t["f"], method="farmhash64"),
    }


@add("fingerprint_unknown_method_fails_at_build", {"s": np.array([b"a"], object)})
def _fingerprint_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.fingerprint(t["s"], method="md5")}


@add("timestamp_is_now", {})
def _timestamp(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    ts = tf.timestamp()
    return {
        "after_2020": tf.greater(ts, 1.6e9),
        "dtype_is_float64": tf.constant(ts.dtype == tf.float64),
    }


# ---- sparse_matmul, sparse_mask -------------------------------------------------------------
@add(
    "sparse_matmul",
    {
        "a": values((2, 3), seed=9).astype(np.float32),
        "b": values((3, 4), seed=10).astype(np.float32),
    },
    grad=("y", ("a", "b")),
    rtol=1e-5,
    atol=1e-5,
)
def _sparse_matmul(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.sparse_matmul(t["a"], t["b"], a_is_sparse=True),
        "tt": tf.sparse_matmul(t["b"], t["a"], transpose_a=True, transpose_b=True),
        "via_matmul": tf.matmul(t["a"], t["b"], b_is_sparse=True),
    }


@add(
    "sparse_matmul_transposed_gradients",
    {
        "a": values((3, 2), seed=11).astype(np.float32),
        "b": values((4, 3), seed=12).astype(np.float32),
    },
    grad=("y", ("a", "b")),
    rtol=1e-5,
    atol=1e-5,
)
def _sparse_matmul_t(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.sparse_matmul(t["a"], t["b"], transpose_a=True, transpose_b=True)}


@add("sparse_matmul_float64_fails_at_build", {"a": values((2, 2), seed=13)})
def _sparse_matmul_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.sparse_matmul(t["a"], t["a"])}


@add("sparse_mask", {"v": values((4, 2), seed=14), "i": np.array([12, 26, 37, 45], I32)})
def _sparse_mask(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a = tf.IndexedSlices(t["v"], t["i"], tf.constant([50, 2]))
    masked = tf.sparse_mask(a, [12, 45])
    return {"values": masked.values, "indices": masked.indices}


# ---- static helpers -----------------------------------------------------------------------
@add("static_helpers", {"x": MATRIX})
def _static(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    known = tf.get_static_value(tf.constant([[1, 2]]) * 1)
    c = tf.get_static_value(tf.constant([[1, 2]]))
    shape = tf.get_static_value(tf.shape(t["x"]))
    sp = tf.convert_to_tensor_or_sparse_tensor(tf.SparseTensorValue([[0, 1]], [3.0], [2, 2]))
    dense = tf.convert_to_tensor_or_sparse_tensor([1, 2], name="dense")
    python = tf.get_static_value([1, 2])
    variable = tf.get_static_value(tf.Variable(1.0, name="static_var"))
    return {
        "python_value_as_is": tf.constant(python == [1, 2]),
        "variable_is_none": tf.constant(variable is None),
        "known_is_none": tf.constant(known is None),
        "const": tf.constant(c),
        "shape": tf.constant(shape),
        "is_tensor": tf.constant([tf.is_tensor(t["x"]), tf.is_tensor(3), tf.is_tensor(sp)]),
        "sparse_values": sp.values,
        "dense": dense,
    }


# ---- dtypes ---------------------------------------------------------------------------------
@add(
    "wide_unsigned_and_complex128",
    {
        "u32": np.array([1, 4000000000], np.uint32),
        "u64": np.array([1, 2**63 + 5], np.uint64),
        "re": np.array([1.0, -2.0]),
        "im": np.array([0.5, 3.0]),
    },
    grad=("z2", ("re", "im")),
)
def _wide(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    z = tf.complex(t["re"], t["im"])
    return {
        "u32": tf.identity(t["u32"]),
        "u64_cast": tf.cast(t["u64"], tf.float64),
        "to_u32": tf.cast(tf.constant([3, 7]), tf.uint32),
        "z": z,
        "z2": tf.real(z * tf.conj(z) + z * z),
        "to128": tf.to_complex128(t["re"]),
        "to64": tf.to_complex64(tf.cast(t["re"], tf.float32)),
        "python_complex": tf.constant(1 + 2j),
        "imag": tf.imag(z),
    }


# ---- sparse serialization -------------------------------------------------------------------
SPARSE = {
    "indices": np.array([[0, 0], [0, 2], [2, 1]], np.int64),
    "values": np.array([1.5, -2.0, 3.25], np.float32),
    "shape": np.array([3, 4], np.int64),
}


def _sparse(tf: Any, t: dict[str, Any]) -> Any:
    return tf.SparseTensor(t["indices"], t["values"], t["shape"])


@add("serialize_sparse_bytes", SPARSE)
def _serialize_sparse(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    sp = _sparse(tf, t)
    strings = tf.SparseTensor(t["indices"], tf.constant(["a", "bc", ""]), t["shape"])
    return {
        "one": tf.serialize_sparse(sp),
        "many": tf.serialize_many_sparse(sp),
        "io_one": tf.io.serialize_sparse(strings),
        "io_many": tf.io.serialize_many_sparse(strings, name="rows"),
    }


@add("deserialize_many_sparse_round_trip", SPARSE)
def _deserialize_many(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    sp = _sparse(tf, t)
    back = tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.float32)
    one = tf.serialize_sparse(sp)
    other = tf.serialize_sparse(
        tf.SparseTensor(tf.constant([[4, 0]], tf.int64), [7.0], tf.constant([5, 2], tf.int64))
    )
    stacked = tf.io.deserialize_many_sparse(tf.stack([one, other, one]), tf.float32, rank=3)
    return {
        "back": (back.indices, back.values, back.dense_shape),
        "stacked": (stacked.indices, stacked.values, stacked.dense_shape),
        "static_rank": tf.constant(
            [-1 if d is None else d for d in stacked.indices.shape.as_list()]
        ),
    }


@add("deserialize_many_sparse_wrong_dtype_fails_at_run", SPARSE)
def _deserialize_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    back = tf.deserialize_many_sparse(tf.serialize_many_sparse(_sparse(tf, t)), tf.int32)
    return {"values": back.values}


@add(
    "serialize_many_sparse_rank_one_fails_at_run",
    {
        "indices": np.array([[1]], np.int64),
        "values": np.array([1.0], np.float32),
        "shape": np.array([3], np.int64),
    },
    unknown_shapes=True,
)
def _serialize_many_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.serialize_many_sparse(_sparse(tf, t))}


# ---- Example parsing with SparseFeature ------------------------------------------------------
def _example(tf: Any, ix: list[int], jx: list[int], val: list[float]) -> bytes:
    feature = {
        "ix": tf.train.Feature(int64_list=tf.train.Int64List(value=ix)),
        "jx": tf.train.Feature(int64_list=tf.train.Int64List(value=jx)),
        "val": tf.train.Feature(float_list=tf.train.FloatList(value=val)),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


@add(
    "parse_example_sparse_feature",
    {},
    names=False,
    notes="TF 2.x parses with ParseExampleV2, TF 1.15 with ParseExample "
    "(test_tf115_names_of_aliases checks 1.15's names)",
)
def _sparse_feature(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    serialized = [
        _example(tf, [3, 1], [0, 2], [0.5, 0.25]),
        _example(tf, [], [], []),
        _example(tf, [4], [1], [2.0]),
    ]
    parsed = tf.parse_example(
        serialized,
        {
            "sp": tf.SparseFeature("ix", "val", tf.float32, 6),
            "sorted": tf.io.SparseFeature("ix", "val", tf.float32, 6, already_sorted=True),
            "two_d": tf.SparseFeature(["ix", "jx"], "val", tf.float32, [6, 3]),
            "ix": tf.VarLenFeature(tf.int64),
        },
    )
    single = tf.parse_single_example(
        serialized[0], {"sp": tf.SparseFeature("ix", "val", tf.float32, 6)}
    )
    out = {k: (v.indices, v.values, v.dense_shape) for k, v in parsed.items()}
    out["keys"] = tf.constant(sorted(parsed))
    out["single"] = (single["sp"].indices, single["sp"].values, single["sp"].dense_shape)
    return out


@add("parse_example_sparse_feature_without_dtype_fails_at_build", {})
def _sparse_feature_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    parsed = tf.parse_example(
        [_example(tf, [1], [0], [1.0])], {"sp": tf.SparseFeature("ix", "val", None, 6)}
    )
    return {"y": parsed["sp"].values}


# ---- aliases and deprecated names ------------------------------------------------------------
@add(
    "math_and_sparse_aliases",
    {
        "labels": np.array([0, 2, 1, 2], I32),
        "pred": np.array([0, 1, 1, 2], I32),
        "data": values((4, 2), seed=15),
        "idx": np.array([0, 2, 3], I32),
        "seg": np.array([0, 0, 1], I32),
    },
    names=False,
    notes="TF 2.x's confusion_matrix ends in ScatterNd, TF 1.15's in SparseTensorDenseAdd "
    "(test_tf115_names_of_aliases checks 1.15's names)",
)
def _aliases(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "confusion": tf.math.confusion_matrix(t["labels"], t["pred"]),
        "confusion_weighted": tf.math.confusion_matrix(
            t["labels"], t["pred"], num_classes=4, weights=[1, 2, 3, 4]
        ),
        "non_decreasing": tf.math.is_non_decreasing(t["labels"]),
        "increasing": tf.math.is_strictly_increasing(t["seg"] + tf.constant([0, 1, 2])),
        "segment_sum": tf.sparse.segment_sum(t["data"], t["idx"], t["seg"]),
        "segment_mean": tf.sparse.segment_mean(t["data"], t["idx"], t["seg"]),
        "segment_sqrt_n": tf.sparse.segment_sqrt_n(t["data"], t["idx"], t["seg"]),
    }


@add("deprecated_scope_and_table_names", {"x": MATRIX})
def _deprecated(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    with tf.op_scope([t["x"]], None, "outer") as scope:
        y = tf.identity(t["x"])
    with tf.op_scope([t["x"]], "named"):
        z = tf.identity(t["x"])
    init = tf.initialize_all_tables()
    return {"y": y, "z": z, "scope": tf.constant(scope), "init_name": tf.constant(init.name)}


# ---- edit distance, volume patches, batch scatter --------------------------------------------
@add("edit_distance_normalized_and_not", {})
def _edit_distance(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    hyp = tf.SparseTensor([[0, 0, 0], [1, 0, 0]], ["a", "b"], [2, 1, 1])
    truth = tf.SparseTensor(
        [[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"], [2, 2, 2]
    )
    longer = tf.SparseTensor(
        tf.constant([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]], tf.int64),
        tf.constant([1, 2, 3, 4, 9], tf.int64),
        tf.constant([2, 4], tf.int64),
    )
    other = tf.SparseTensor(
        tf.constant([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], tf.int64),
        tf.constant([1, 3, 4, 7, 9], tf.int64),
        tf.constant([2, 3], tf.int64),
    )
    return {
        "normalized": tf.edit_distance(hyp, truth),
        "raw": tf.edit_distance(hyp, truth, normalize=False, name="raw"),
        "ints": tf.edit_distance(longer, other),
        "ints_raw": tf.edit_distance(other, longer, normalize=False),
    }


@add("edit_distance_mixed_types_fails_at_build", {})
def _edit_distance_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a = tf.SparseTensor([[0, 0]], [1], [1, 1])
    b = tf.SparseTensor([[0, 0]], [1.0], [1, 1])
    return {"y": tf.edit_distance(a, b)}


@add("extract_volume_patches", {"x": values((2, 4, 5, 3, 2), seed=16)}, grad=("valid", ("x",)))
def _volume_patches(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "valid": tf.extract_volume_patches(t["x"], [1, 2, 3, 2, 1], [1, 2, 1, 1, 1], "VALID"),
        "same": tf.extract_volume_patches(t["x"], [1, 3, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
    }


@add(
    "extract_volume_patches_same_gradient",
    {"x": values((1, 3, 4, 3, 2), seed=17)},
    grad=("y", ("x",)),
)
def _volume_patches_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.extract_volume_patches(t["x"], [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], "SAME")}


@add(
    "extract_volume_patches_window_over_batch_fails_at_run", {"x": values((1, 2, 2, 2, 1), seed=18)}
)
def _volume_patches_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.extract_volume_patches(t["x"], [2, 1, 1, 1, 1], [1, 1, 1, 1, 1], "VALID")}


@add("batch_scatter_update", {"i": np.array([[2, 0], [1, 1]], I32)})
def _batch_scatter(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    var = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [2, 2, 3]), name="v")
    i3 = tf.constant([[[2, 0], [1, 1]], [[0, 0], [2, 1]]], tf.int32)
    updated = tf.batch_scatter_update(
        var, i3, tf.constant(-np.arange(8.0).reshape(2, 2, 2), tf.float32)
    )
    var2 = tf.Variable(tf.zeros([2, 3, 2]), name="w")
    rows = tf.batch_scatter_update(var2, t["i"], tf.ones([2, 2, 2]), name="rows")
    return {"updated": updated, "rows": rows}


# ---- bfloat16 -------------------------------------------------------------------------------
@add(
    "bfloat16_casts_and_matmuls",
    {
        "x": values((2, 3), seed=19).astype(np.float32),
        "y": values((3, 2), seed=20).astype(np.float32),
    },
    grad=("through_bf16", ("x",)),
    rtol=1e-2,
    atol=1e-2,
)
def _bfloat16(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    bx, by = tf.to_bfloat16(t["x"]), tf.cast(t["y"], tf.bfloat16)
    both = tf.matmul(bx, by)
    mixed = tf.matmul(t["x"], by)
    return {
        "is_bfloat16": tf.constant([bx.dtype == tf.bfloat16, both.dtype == tf.bfloat16]),
        "rounded": tf.cast(bx, tf.float32),
        "bits": tf.bitcast(bx, tf.uint16),
        "both": tf.cast(both, tf.float32),
        "mixed": mixed,
        "sparse": tf.sparse_matmul(bx, t["y"], b_is_sparse=True),
        "through_bf16": tf.cast(bx, tf.float32) * 3.0,
    }


def _ragged_sparse(lengths: list[int], seed: int, rows: int, width: int) -> dict[str, Any]:
    """A [rows, width] SparseTensor with the given row lengths and values in 0..4."""
    idx = np.array([[r, c] for r in range(rows) for c in range(lengths[r])], np.int64)
    vals = (np.floor(values((len(idx),), 0.0, 5.0, seed=seed))).astype(np.int64)
    return {"indices": idx.reshape(-1, 2), "values": vals, "shape": np.array([rows, width])}


_HYP = _ragged_sparse([0, 3, 7, 80, 12, 1, 0, 40], seed=21, rows=8, width=80)
_TRUTH = _ragged_sparse([2, 0, 9, 75, 12, 1, 0, 33, 4], seed=22, rows=9, width=75)


@add(
    "edit_distance_ragged_batch",
    {
        "hi": _HYP["indices"],
        "hv": _HYP["values"],
        "hs": _HYP["shape"],
        "ti": _TRUTH["indices"],
        "tv": _TRUTH["values"],
        "ts": _TRUTH["shape"],
    },
)
def _edit_distance_batch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    hyp = tf.SparseTensor(t["hi"], t["hv"], t["hs"])
    truth = tf.SparseTensor(t["ti"], t["tv"], t["ts"])
    return {
        "normalized": tf.edit_distance(hyp, truth),
        "raw": tf.edit_distance(hyp, truth, normalize=False),
    }
