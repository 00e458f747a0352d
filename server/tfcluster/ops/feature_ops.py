"""The ops feature columns are built from: Bucketize (a value's bucket among sorted
boundaries) and SparseCross (the cartesian product of sparse/dense feature columns, row by
row, as strings joined by "_X_" or as FarmHash fingerprints chained with FingerprintCat64)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

# sparse_ops._DEFAULT_HASH_KEY in TF: the seed of the fingerprint chain.
DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _bucketize_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int32, inputs[0].shape)]


def _cross_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [
        (dtypes.int64, TensorShape([None, 2])),
        (attrs["out_type"], TensorShape([None])),
        (dtypes.int64, TensorShape([2])),
    ]


op_def_registry.register("Bucketize", _bucketize_infer)
op_def_registry.register("SparseCross", _cross_infer)
OP_TYPES = ("Bucketize", "SparseCross")


def bucketize(input: Any, boundaries: Sequence[float], name: str | None = None) -> Tensor:
    """The index of each value's bucket: i where boundaries[i-1] <= x < boundaries[i]."""
    with name_scope(name, "Bucketize", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        bounds = [float(b) for b in boundaries]
        if bounds != sorted(bounds):
            raise ValueError("Expected sorted boundaries")
        return make_op(
            "Bucketize", [x], {"T": x.dtype.base_dtype, "boundaries": bounds}, scope
        ).outputs[0]


def _cross(
    inputs: Sequence[Any], hashed_output: bool, num_buckets: int, hash_key: int | None, name: Any
) -> SparseTensor:
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, Tensor)) or hasattr(i, "dtype") for i in inputs):
        raise TypeError("All inputs must be SparseTensors")
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [convert_to_tensor(i) for i in inputs if not isinstance(i, SparseTensor)]
    # TF casts int32 features to int64 before crossing.
    from tfcluster.ops import math_ops

    def as64(t: Tensor) -> Tensor:
        return math_ops.cast(t, dtypes.int64) if t.dtype == dtypes.int32 else t

    sparse_values = [as64(s.values) for s in sparse]
    dense = [as64(d) for d in dense]
    internal = dtypes.string
    if any(v.dtype == dtypes.int64 for v in [*sparse_values, *dense]) and not any(
        v.dtype == dtypes.string for v in [*sparse_values, *dense]
    ):
        internal = dtypes.int64
    out_type = dtypes.int64 if hashed_output else dtypes.string
    with name_scope(name, "SparseCross") as scope:
        op = make_op(
            "SparseCross",
            [
                *(s.indices for s in sparse),
                *sparse_values,
                *(s.dense_shape for s in sparse),
                *dense,
            ],
            {
                "N": len(sparse),
                "hashed_output": hashed_output,
                "num_buckets": num_buckets,
                "hash_key": DEFAULT_HASH_KEY if hash_key is None else hash_key,
                "sparse_types": [v.dtype for v in sparse_values],
                "dense_types": [d.dtype for d in dense],
                "out_type": out_type,
                "internal_type": internal,
            },
            scope,  # absolute: the op is the scope's name, under the name scope in force
        )
    return SparseTensor(*op.outputs)


def sparse_cross(inputs: Sequence[Any], name: str | None = None) -> SparseTensor:
    """The row-wise cross of the inputs as strings ("a_X_b")."""
    return _cross(inputs, False, 0, None, name)


def sparse_cross_hashed(
    inputs: Sequence[Any], num_buckets: int = 0, hash_key: int | None = None, name: Any = None
) -> SparseTensor:
    """The row-wise cross of the inputs as fingerprints (mod num_buckets when > 0)."""
    return _cross(inputs, True, num_buckets, hash_key, name)
