"""Batch, Unbatch and UnbatchGrad: tensors of concurrent steps gathered into one batch (one of
the steps gets it; the others get empty tensors) and split back to each step by its id.
TF 1.15 registers no gradient for them. Kernels: kernels/cross_run_batching.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


def _rows(shape: TensorShape) -> TensorShape:
    """The same shape with its first dimension unknown (the batch's rows)."""
    if shape.ndims is None:
        return TensorShape(None)
    return TensorShape([None, *shape.as_list()[1:]])


def _batch_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    out: Outputs = [(t.dtype.base_dtype, _rows(t.shape)) for t in inputs]
    out.append((dtypes.int64, TensorShape([None, 3])))
    out.append((dtypes.int64, TensorShape([])))
    return out


def _unbatch_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, _rows(inputs[0].shape))]


op_def_registry.register("Batch", _batch_infer, stateful=True)
op_def_registry.register("Unbatch", _unbatch_infer, stateful=True)
op_def_registry.register("UnbatchGrad", _unbatch_infer, stateful=True)
