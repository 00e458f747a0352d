"""Ragged tensors to dense tensors and to variants, as TF 1.15's raw ops: RaggedTensorToTensor
(row partitions given as splits or value_rowids, the output padded with default_value or cut
to `shape`), RaggedTensorToVariant / RaggedTensorFromVariant (a ragged tensor, or each row of
one, as a scalar variant). Kernels: kernels/ragged_conversion.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.array_ops import _partial_values
from tfcluster.ops.op_util import Outputs

PARTITION_TYPES = ("FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_SPLITS")


def partition_types(attrs: dict[str, Any]) -> list[str]:
    return [t.decode() if isinstance(t, bytes) else str(t) for t in attrs["row_partition_types"]]


def _to_tensor_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    kinds = partition_types(attrs)
    for kind in kinds:
        if kind not in PARTITION_TYPES:
            raise ValueError(f"Unknown string for partition info type: {kind}")
    shape_t, values = inputs[0], inputs[1]
    ragged_dims = len([k for k in kinds if k != "FIRST_DIM_SIZE"])
    rank = None if values.shape.ndims is None else values.shape.ndims + ragged_dims
    dims: list[int | None] | None = None
    if shape_t.shape.ndims == 1:
        given = _partial_values(shape_t)
        if given is not None:
            dims = [d if d is not None and d >= 0 else None for d in given]
    if dims is None:
        out = TensorShape(None) if rank is None else TensorShape([None] * rank)
    else:
        out = TensorShape(dims)
    if values.shape.ndims is not None and out.ndims is not None and values.shape.ndims > 1:
        inner = values.shape.as_list()[1:]
        merged = out.as_list()[: out.ndims - len(inner)] + [
            a if a is not None else b
            for a, b in zip(out.as_list()[out.ndims - len(inner) :], inner)
        ]
        out = TensorShape(merged)
    return [(values.dtype.base_dtype, out)]


def _to_variant_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if not attrs.get("batched_input", False):
        return [(dtypes.variant, TensorShape([]))]
    outer = inputs[0].shape if len(inputs) > 1 else inputs[0].shape[:1]
    n = outer.as_list()[0] if outer.ndims else None
    return [(dtypes.variant, TensorShape([None if n is None else max(n - 1, 0)]))]


def _from_variant_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    input_rank = int(attrs["input_ragged_rank"])
    output_rank = int(attrs["output_ragged_rank"])
    encoded = inputs[0].shape.ndims
    if input_rank >= 0 and encoded is not None and encoded != output_rank - input_rank:
        raise ValueError(f"Shape must be rank {output_rank - input_rank} but is rank {encoded}")
    splits: Outputs = [(attrs["Tsplits"], TensorShape([None])) for _ in range(output_rank)]
    return [*splits, (attrs["Tvalues"], TensorShape(None))]


op_def_registry.register("RaggedTensorToTensor", _to_tensor_infer)
op_def_registry.register("RaggedTensorToVariant", _to_variant_infer)
op_def_registry.register("RaggedTensorFromVariant", _from_variant_infer)
