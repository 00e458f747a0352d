"""tf.SparseConditionalAccumulator: averages IndexedSlices gradients from many workers (what
SyncReplicasOptimizer aggregates a gather's gradient with), dropping those computed for an old
global step. As in TF 1.15 each row is averaged over the gradients that had it, and the rows
come back in the order they first arrived. It shares the accumulators' step and count ops
(AccumulatorSetGlobalStep, AccumulatorNumAccumulated) with ConditionalAccumulator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    name_scope,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import math_ops
from tfcluster.ops.data_flow_ops import ConditionalAccumulator, accumulator_handle_infer
from tfcluster.ops.op_util import Outputs, make_op


def _take_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [
        (dtypes.int64, TensorShape([None])),
        (attrs["dtype"], TensorShape(None)),
        (dtypes.int64, TensorShape([None])),
    ]


op_def_registry.register("SparseConditionalAccumulator", accumulator_handle_infer, stateful=True)
op_def_registry.register(
    "SparseAccumulatorApplyGradient", op_def_registry.no_outputs, ref_inputs=[0], stateful=True
)
op_def_registry.register(
    "SparseAccumulatorTakeGradient", _take_infer, ref_inputs=[0], stateful=True
)
# The op types this module adds (TF 1.15 registers no gradient for them: tf.gradients
# raises LookupError when a gradient reaches one, as TF).
OP_TYPES = (
    "SparseConditionalAccumulator",
    "SparseAccumulatorApplyGradient",
    "SparseAccumulatorTakeGradient",
)


class SparseConditionalAccumulator(ConditionalAccumulator):
    """A conditional accumulator of sparse gradients (IndexedSlices)."""

    def __init__(
        self,
        dtype: Any,
        shape: Any = None,
        shared_name: str | None = None,
        name: str = "sparse_conditional_accumulator",
        reduction_type: str = "MEAN",
    ) -> None:
        if reduction_type not in ("MEAN", "SUM"):
            raise ValueError(f"reduction_type must be MEAN or SUM, got {reduction_type}")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        if self._dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise TypeError(
                f"SparseConditionalAccumulator needs a float dtype, got {self._dtype.name}"
            )
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        attrs = {
            "dtype": self._dtype,
            "shape": self._shape,
            "container": "",
            "shared_name": shared_name or "",
            "reduction_type": reduction_type,
        }
        op = make_op("SparseConditionalAccumulator", [], attrs, name=name)
        self._accumulator_ref = op.outputs[0]
        self._name = op.name.split("/")[-1]

    def apply_indexed_slices_grad(
        self, grad: IndexedSlices, local_step: Any = 0, name: str | None = None
    ) -> Operation:
        return self.apply_grad(
            grad_indices=grad.indices,
            grad_values=grad.values,
            grad_shape=grad.dense_shape,
            local_step=local_step,
            name=name,
        )

    def apply_grad(  # type: ignore[override]
        self,
        grad_indices: Any,
        grad_values: Any,
        grad_shape: Any = None,
        local_step: Any = 0,
        name: str | None = None,
    ) -> Operation:
        """Adds the rows grad_values at grad_indices (of a tensor of grad_shape, when known)
        unless local_step is older than the accumulator's step."""
        step = math_ops.cast(convert_to_tensor(local_step), dtypes.int64)
        indices = math_ops.cast(grad_indices, dtypes.int64)
        values = convert_to_tensor(grad_values, dtype=self._dtype)
        shape = math_ops.cast([] if grad_shape is None else grad_shape, dtypes.int64)
        with colocate_with(self._accumulator_ref.op):
            return make_op(
                "SparseAccumulatorApplyGradient",
                [self._accumulator_ref, step, indices, values, shape],
                {"dtype": self._dtype, "has_known_shape": grad_shape is not None},
                name=name or "SparseAccumulatorApplyGradient",
            )

    def take_grad(self, num_required: Any, name: str | None = None) -> Any:  # type: ignore[override]
        """(indices, values, shape) of the mean of num_required gradients, once they came."""
        with (
            colocate_with(self._accumulator_ref.op),
            name_scope(name, "SparseAccumulatorTakeGradient") as scope,
        ):
            n = convert_to_tensor(num_required, dtype=dtypes.int32, name="num_required")
            op = make_op(
                "SparseAccumulatorTakeGradient",
                [self._accumulator_ref, n],
                {"dtype": self._dtype},
                name=scope,
            )
        return tuple(op.outputs)

    def take_indexed_slices_grad(self, num_required: Any, name: str | None = None) -> IndexedSlices:
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)


__all__ = ["SparseConditionalAccumulator"]
