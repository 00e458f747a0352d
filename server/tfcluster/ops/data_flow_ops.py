"""Queues and conditional accumulators (TF1's data_flow_ops): FIFOQueue, ConditionalAccumulator.

Both are resources kept in their task's resource manager: with a `shared_name` every session
on that task sees the same one (how SyncReplicasOptimizer's workers share its token queue and
gradient accumulators on the ps); without one each session's kernel has its own. Ops that use
a queue or an accumulator take its handle as a reference input, so they are always placed on
the task that holds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import math_ops
from tfcluster.ops.op_util import Outputs, make_op

_HANDLE = [(dtypes.resource, TensorShape([]))]


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_HANDLE)


def _queue_shapes(handle: Tensor, n: int) -> list[TensorShape]:
    """The element shapes the queue op declares (unknown when it declares none)."""
    shapes = handle.op.attrs.get("shapes") if hasattr(handle, "op") else None
    if shapes:
        return [as_shape(s) for s in shapes]
    return [TensorShape(None)] * n


def _dequeue_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    types = attrs["component_types"]
    return list(zip(types, _queue_shapes(inputs[0], len(types))))


def _batched(inputs: Sequence[Tensor], attrs: dict[str, Any], lead: int | None) -> Outputs:
    types = attrs["component_types"]
    out = []
    for dt, s in zip(types, _queue_shapes(inputs[0], len(types))):
        out.append((dt, TensorShape([lead]).concatenate(s) if s.ndims is not None else s))
    return out


def _dequeue_many_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    n = tensor_util.constant_value(inputs[1])
    return _batched(inputs, attrs, int(n) if n is not None else None)


def _dequeue_up_to_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return _batched(inputs, attrs, None)


def _scalar(dtype: dtypes.DType) -> Any:
    return lambda inputs, attrs: [(dtype, TensorShape([]))]


def _take_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["dtype"], TensorShape(attrs.get("shape")))]


_HANDLE_USERS = {
    "QueueEnqueueV2": op_def_registry.no_outputs,
    "QueueEnqueueManyV2": op_def_registry.no_outputs,
    "QueueDequeueV2": _dequeue_infer,
    "QueueDequeueManyV2": _dequeue_many_infer,
    "QueueDequeueUpToV2": _dequeue_up_to_infer,
    "QueueSizeV2": _scalar(dtypes.int32),
    "QueueCloseV2": op_def_registry.no_outputs,
    "QueueIsClosedV2": _scalar(dtypes.bool_),
    "AccumulatorApplyGradient": op_def_registry.no_outputs,
    "AccumulatorTakeGradient": _take_infer,
    "AccumulatorSetGlobalStep": op_def_registry.no_outputs,
    "AccumulatorNumAccumulated": _scalar(dtypes.int32),
    # tfcluster's own: wakes takes waiting right now with CancelledError (the accumulator
    # stays usable), what TF gets from cancelling a closed session's steps.
    "_AccumulatorCancelTakes": op_def_registry.no_outputs,
}

op_def_registry.register("FIFOQueueV2", _handle_infer, stateful=True)
op_def_registry.register("ConditionalAccumulator", _handle_infer, stateful=True)
for _op, _infer in _HANDLE_USERS.items():
    # The handle is a reference input: the placer keeps the op on the resource's task.
    op_def_registry.register(_op, _infer, ref_inputs=[0], stateful=True)
# The op types this module adds (gradients/data_flow_grad.py marks them not differentiable).
OP_TYPES = ("FIFOQueueV2", "ConditionalAccumulator", *_HANDLE_USERS)


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


class QueueBase:
    """A queue of tuples of tensors (its components), shared through its resource handle."""

    def __init__(
        self,
        dtypes_: Sequence[Any],
        shapes: Sequence[Any] | None,
        names: Sequence[str] | None,
        queue_ref: Tensor,
    ) -> None:
        self._dtypes = [dtypes.as_dtype(d).base_dtype for d in dtypes_]
        self._shapes = (
            [as_shape(s) for s in shapes] if shapes else [TensorShape(None)] * len(self._dtypes)
        )
        if names is not None and len(names) != len(self._dtypes):
            raise ValueError("Queue must have the same number of names as dtypes")
        self._names = list(names) if names is not None else None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @property
    def queue_ref(self) -> Tensor:
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list[dtypes.DType]:
        return list(self._dtypes)

    @property
    def shapes(self) -> list[TensorShape]:
        return list(self._shapes)

    @property
    def names(self) -> list[str] | None:
        return self._names

    def _component_attrs(self) -> dict[str, Any]:
        return {"component_types": list(self._dtypes)}

    def _check_vals(self, vals: Any, many: bool) -> list[Tensor]:
        if isinstance(vals, Mapping):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names) != sorted(vals.keys()):
                raise ValueError(
                    f"Keys in dictionary to enqueue do not match names of Queue. Dictionary: "
                    f"{sorted(vals.keys())}, Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            vals = _as_list(vals)
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components to enqueue, got {len(vals)}")
        tensors = []
        for i, (v, dt, shape) in enumerate(zip(vals, self._dtypes, self._shapes)):
            t = convert_to_tensor(v, dtype=dt, name=f"component_{i}")
            got = t.shape[1:] if many and t.shape.ndims else t.shape
            if many and t.shape.ndims == 0:
                raise ValueError(f"enqueue_many needs at least rank 1 components: {t}")
            if not shape.is_compatible_with(got):
                raise ValueError(
                    f"Shape {t.shape} of component {i} is incompatible with the queue's shape "
                    f"{shape}{' (per element)' if many else ''}"
                )
            tensors.append(t)
        return tensors

    def enqueue(self, vals: Any, name: str | None = None) -> Operation:
        """Adds one element; blocks while the queue is full."""
        with name_scope(name, f"{self._name}_enqueue", _as_list(vals)) as scope:
            tensors = self._check_vals(vals, many=False)
            attrs = {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1}
            with colocate_with(self._queue_ref.op):
                return make_op("QueueEnqueueV2", [self._queue_ref, *tensors], attrs, name=scope)

    def enqueue_many(self, vals: Any, name: str | None = None) -> Operation:
        """Adds the slices along dimension 0 of every component, in order."""
        with name_scope(name, f"{self._name}_EnqueueMany", _as_list(vals)) as scope:
            tensors = self._check_vals(vals, many=True)
            attrs = {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1}
            with colocate_with(self._queue_ref.op):
                return make_op("QueueEnqueueManyV2", [self._queue_ref, *tensors], attrs, name=scope)

    def _unpack(self, op: Operation) -> Any:
        outs = list(op.outputs)
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs[0] if len(outs) == 1 else outs

    def dequeue(self, name: str | None = None) -> Any:
        """Removes one element; blocks while the queue is empty (OutOfRange once closed)."""
        if name is None:
            name = f"{self._name}_Dequeue"
        attrs = {**self._component_attrs(), "timeout_ms": -1}
        with colocate_with(self._queue_ref.op):
            op = make_op("QueueDequeueV2", [self._queue_ref], attrs, name=name)
        return self._unpack(op)

    def dequeue_many(self, n: Any, name: str | None = None) -> Any:
        if name is None:
            name = f"{self._name}_DequeueMany"
        with colocate_with(self._queue_ref.op):
            n_t = convert_to_tensor(n, dtype=dtypes.int32, name="n")
            attrs = {**self._component_attrs(), "timeout_ms": -1}
            op = make_op("QueueDequeueManyV2", [self._queue_ref, n_t], attrs, name=name)
        return self._unpack(op)

    def dequeue_up_to(self, n: Any, name: str | None = None) -> Any:
        if name is None:
            name = f"{self._name}_DequeueUpTo"
        with colocate_with(self._queue_ref.op):
            n_t = convert_to_tensor(n, dtype=dtypes.int32, name="n")
            attrs = {**self._component_attrs(), "timeout_ms": -1}
            op = make_op("QueueDequeueUpToV2", [self._queue_ref, n_t], attrs, name=name)
        return self._unpack(op)

    def size(self, name: str | None = None) -> Tensor:
        with colocate_with(self._queue_ref.op):
            return make_op(
                "QueueSizeV2", [self._queue_ref], {}, name=name or f"{self._name}_Size"
            ).outputs[0]

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None) -> Operation:
        """Closes the queue: no more enqueues; dequeues drain what is left, then OutOfRange."""
        with colocate_with(self._queue_ref.op):
            return make_op(
                "QueueCloseV2",
                [self._queue_ref],
                {"cancel_pending_enqueues": cancel_pending_enqueues},
                name=name or f"{self._name}_Close",
            )

    def is_closed(self, name: str | None = None) -> Tensor:
        with colocate_with(self._queue_ref.op):
            return make_op(
                "QueueIsClosedV2", [self._queue_ref], {}, name=name or f"{self._name}_IsClosed"
            ).outputs[0]


class FIFOQueue(QueueBase):
    """A first-in first-out queue; capacity < 0 means unbounded."""

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Sequence[str] | None = None,
        shared_name: str | None = None,
        name: str = "fifo_queue",
    ) -> None:
        dts = _as_list(dtypes)
        shape_list = None
        if shapes is not None:
            shape_list = _as_shape_list(shapes)
            if len(shape_list) != len(dts):
                raise ValueError(
                    f"Queue shapes must have the same length as dtypes: {len(shape_list)} "
                    f"vs {len(dts)}"
                )
            for s in shape_list:
                if not s.is_fully_defined():
                    raise ValueError(f"Queue shapes must be fully defined, got {s}")
        attrs = {
            "component_types": [_dtype(d) for d in dts],
            "shapes": list(shape_list) if shape_list else [],
            "capacity": int(capacity),
            "container": "",
            "shared_name": shared_name or "",
        }
        ref = make_op("FIFOQueueV2", [], attrs, name=name).outputs[0]
        super().__init__(dts, shape_list, names, ref)


def _dtype(d: Any) -> dtypes.DType:
    return dtypes.as_dtype(d).base_dtype


def _as_shape_list(shapes: Any) -> list[TensorShape]:
    """TF's rule: a list of ints/None (even empty: a scalar) is one shape, else one per item."""
    if isinstance(shapes, TensorShape):
        return [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(f"shapes must be a TensorShape or a list or tuple of them: {shapes!r}")
    if all(s is None or isinstance(s, int) for s in shapes):
        return [as_shape(shapes)]
    return [as_shape(s) for s in shapes]


class ConditionalAccumulator:
    """Averages gradients from many workers, dropping those computed for an old global step.

    apply_grad(grad, local_step) adds the gradient unless local_step is older than the
    accumulator's step; take_grad(n) waits until n gradients arrived, returns their mean,
    resets, and advances the accumulator's step by one.
    """

    def __init__(
        self,
        dtype: Any,
        shape: Any = None,
        shared_name: str | None = None,
        name: str = "conditional_accumulator",
        reduction_type: str = "MEAN",
    ) -> None:
        if reduction_type not in ("MEAN", "SUM"):
            raise ValueError(f"reduction_type must be MEAN or SUM, got {reduction_type}")
        self._dtype = _dtype(dtype)
        if self._dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise TypeError(f"ConditionalAccumulator needs a float dtype, got {self._dtype.name}")
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        attrs = {
            "dtype": self._dtype,
            "shape": self._shape,
            "container": "",
            "shared_name": shared_name or "",
            "reduction_type": reduction_type,
        }
        self._accumulator_ref = make_op("ConditionalAccumulator", [], attrs, name=name).outputs[0]
        self._name = self._accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self) -> Tensor:
        return self._accumulator_ref

    @property
    def name(self) -> str:
        return self._accumulator_ref.op.name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    def num_accumulated(self, name: str | None = None) -> Tensor:
        with colocate_with(self._accumulator_ref.op):
            return make_op(
                "AccumulatorNumAccumulated",
                [self._accumulator_ref],
                {},
                name=name or f"{self._name}_NumAccumulated",  # TF's default name
            ).outputs[0]

    def set_global_step(self, new_global_step: Any, name: str | None = None) -> Operation:
        with colocate_with(self._accumulator_ref.op):
            step = _int64(new_global_step)
            return make_op(
                "AccumulatorSetGlobalStep",
                [self._accumulator_ref, step],
                {},
                name=name or "AccumulatorSetGlobalStep",
            )

    def apply_grad(self, grad: Any, local_step: Any = 0, name: str | None = None) -> Operation:
        g = convert_to_tensor(grad, dtype=self._dtype)
        if not self._shape.is_compatible_with(g.shape):
            raise ValueError(
                f"Shapes {self._shape} and {g.shape} are incompatible (accumulator "
                f"{self.name} and gradient)"
            )
        with colocate_with(self._accumulator_ref.op):
            step = _int64(local_step)
            return make_op(
                "AccumulatorApplyGradient",
                [self._accumulator_ref, step, g],
                {"dtype": self._dtype},
                name=name or "AccumulatorApplyGradient",
            )

    def cancel_pending_takes(self, name: str | None = None) -> Operation:
        """Makes every take_grad waiting now fail with CancelledError; later ones work."""
        with colocate_with(self._accumulator_ref.op):
            return make_op(
                "_AccumulatorCancelTakes",
                [self._accumulator_ref],
                {},
                name=name or "AccumulatorCancelTakes",
            )

    def take_grad(self, num_required: Any, name: str | None = None) -> Tensor:
        with colocate_with(self._accumulator_ref.op):
            n = convert_to_tensor(num_required, dtype=dtypes.int32)
            return make_op(
                "AccumulatorTakeGradient",
                [self._accumulator_ref, n],
                {"dtype": self._dtype, "shape": self._shape},
                name=name or "AccumulatorTakeGradient",
            ).outputs[0]


def _int64(x: Any) -> Tensor:
    t = convert_to_tensor(x)
    if t.dtype.base_dtype != dtypes.int64:
        t = math_ops.cast(t, dtypes.int64)
    return t


__all__ = ["ConditionalAccumulator", "FIFOQueue", "QueueBase"]
