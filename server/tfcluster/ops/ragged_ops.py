"""The ragged ops with kernels of their own, registered under TF's op names so graphs look
the same: RaggedRange, RaggedGather, RaggedTensorToSparse, UnicodeDecode and
UnicodeDecodeWithOffsets.
These functions only add the ops; RaggedTensor (ops/ragged_tensor.py) wraps their outputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _vector_len(t: Tensor) -> int | None:
    shape = t.shape
    if shape.ndims is None or shape.ndims == 0:
        return None
    return shape.as_list()[0]


def _range_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    rows = None
    for t in inputs:
        if t.shape.ndims == 1:
            n = t.shape.as_list()[0]
            rows = n if n is not None else rows
    if rows is None and all(t.shape.ndims == 0 for t in inputs):
        rows = 1
    splits = TensorShape([None if rows is None else rows + 1])
    return [
        (attrs.get("Tsplits", dtypes.int64), splits),
        (inputs[0].dtype.base_dtype, TensorShape([None])),
    ]


def _to_sparse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    values = inputs[-1]
    rank = None
    if values.shape.ndims is not None:
        rank = values.shape.ndims + len(inputs) - 1 + 0
    count = values.shape.num_elements()  # one index row per flat value
    return [
        (dtypes.int64, TensorShape([count, rank])),
        (values.dtype.base_dtype, TensorShape([count])),
        (dtypes.int64, TensorShape([rank])),
    ]


def _decode_infer(with_offsets: bool) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        n = _vector_len(inputs[0])
        out: Outputs = [
            (attrs.get("Tsplits", dtypes.int64), TensorShape([None if n is None else n + 1])),
            (dtypes.int32, TensorShape([None])),
        ]
        if with_offsets:
            out.append((dtypes.int64, TensorShape([None])))
        return out

    return infer


def _gather_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    params_rank = int(attrs["PARAMS_RAGGED_RANK"])
    out_rank = int(attrs["OUTPUT_RAGGED_RANK"])
    splits_dtype = inputs[0].dtype.base_dtype
    values = inputs[params_rank]
    inner = values.shape[1:] if values.shape.ndims is not None else TensorShape(None)
    out: Outputs = [(splits_dtype, TensorShape([None])) for _ in range(out_rank)]
    out.append((values.dtype.base_dtype, TensorShape([None]).concatenate(inner)))
    return out


op_def_registry.register("RaggedRange", _range_infer)
op_def_registry.register("RaggedGather", _gather_infer)
op_def_registry.register("RaggedTensorToSparse", _to_sparse_infer)
op_def_registry.register("UnicodeDecode", _decode_infer(False))
op_def_registry.register("UnicodeDecodeWithOffsets", _decode_infer(True))


def ragged_range_op(
    starts: Tensor, limits: Tensor, deltas: Tensor, splits_dtype: dtypes.DType, name: str
) -> Operation:
    attrs = {"T": starts.dtype.base_dtype, "Tsplits": splits_dtype}
    return make_op("RaggedRange", [starts, limits, deltas], attrs, name=name)


def ragged_gather_op(
    nested_splits: Sequence[Tensor], flat_values: Tensor, indices: Tensor, name: str
) -> Operation:
    """RaggedGather: output ragged rank = params' + rank(indices) - 1."""
    rank = indices.shape.ndims
    if rank is None:
        raise ValueError("indices.shape.ndims must be known statically")
    attrs = {
        "Tvalues": flat_values.dtype.base_dtype,
        "Tindices": indices.dtype.base_dtype,
        "Tsplits": nested_splits[0].dtype.base_dtype,
        "PARAMS_RAGGED_RANK": len(nested_splits),
        "OUTPUT_RAGGED_RANK": len(nested_splits) + rank - 1,
    }
    return make_op("RaggedGather", [*nested_splits, flat_values, indices], attrs, name=name)


def ragged_to_sparse_op(nested_splits: Sequence[Tensor], flat_values: Tensor, name: str) -> Any:
    attrs = {
        "RAGGED_RANK": len(nested_splits),
        "T": flat_values.dtype.base_dtype,
        "Tsplits": nested_splits[0].dtype.base_dtype,
    }
    return make_op("RaggedTensorToSparse", [*nested_splits, flat_values], attrs, name=name)


def unicode_decode_op(
    input: Tensor,
    input_encoding: str,
    errors: str,
    replacement_char: int,
    replace_control_characters: bool,
    with_offsets: bool,
    name: str,
) -> Operation:
    attrs = {
        "input_encoding": input_encoding,
        "errors": errors,
        "replacement_char": int(replacement_char),
        "replace_control_characters": bool(replace_control_characters),
        "Tsplits": dtypes.int64,
    }
    op_type = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    return make_op(op_type, [input], attrs, name=name)


__all__: list[str] = []
