"""Queues and conditional accumulators (TF1's data_flow_ops): FIFOQueue, RandomShuffleQueue,
PaddingFIFOQueue, PriorityQueue, ConditionalAccumulator.

Each is a resource kept in its task's resource manager: with a `shared_name` every session
on that task sees the same one (how SyncReplicasOptimizer's workers share its token queue and
gradient accumulators on the ps); without one each session's kernel has its own. Ops that use
a queue or an accumulator take its handle as a reference input, so they are always placed on
the task that holds it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    get_seed,
    name_scope,
)
from tfcluster.framework.tensor_shape import Dimension, TensorShape, as_shape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.op_util import Outputs, make_op

_HANDLE = [(dtypes.resource, TensorShape([]))]
_MAXINT32 = 2**31 - 1
QUEUE_OPS = ("FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2")
# TF's first queue ops: the same queues behind a mutable string handle (graphs written before
# resource handles, and tf.raw_ops); their users are the V2 ops without the suffix.
LEGACY_QUEUE_OPS = ("FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue")


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_HANDLE)


# TF's accumulators hand out a mutable string handle of two elements (container, name), not a
# resource: imported graphs and tf.raw_ops pass it to ops whose handle input is a string ref.
_ACCUMULATOR_HANDLE = [(dtypes.string._as_ref, TensorShape([2]))]


def accumulator_handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_ACCUMULATOR_HANDLE)


def _queue_shapes(handle: Tensor, n: int) -> list[TensorShape]:
    """The element shapes the queue op declares (unknown when it declares none, or when the
    handle is not a queue op's own output: QueueBase sets the shapes it knows)."""
    op = getattr(handle, "op", None)
    # TF knows them through the resource handle's shape data: a string ref handle has none.
    shapes = op.attrs.get("shapes") if op is not None and op.type in QUEUE_OPS else None
    if not shapes:
        return [TensorShape(None)] * n
    out = [as_shape(s) for s in shapes]
    if op is not None and op.type == "PriorityQueueV2":
        out = [TensorShape([]), *out]
    return out if len(out) == n else [TensorShape(None)] * n


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
    # The shape the accumulator declares (TF's AccumulatorTakeGradient has no shape attr).
    op = getattr(inputs[0], "op", None)
    shape = (
        op.attrs.get("shape") if op is not None and op.type == "ConditionalAccumulator" else None
    )
    return [(attrs["dtype"], TensorShape(shape))]


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

# The ref-handle queue users (QueueEnqueue, ...) and the resource-handle accumulator users
# (ResourceAccumulatorApplyGradient, ...): one kernel body each with the op they rename.
LEGACY_NAMES = {
    **{op: op.removesuffix("V2") for op in _HANDLE_USERS if op.startswith("Queue")},
    **{op: f"Resource{op}" for op in _HANDLE_USERS if op.startswith("Accumulator")},
}

for _op in QUEUE_OPS:
    op_def_registry.register(_op, _handle_infer, stateful=True)
for _op in LEGACY_QUEUE_OPS:
    op_def_registry.register(_op, accumulator_handle_infer, stateful=True)
# FakeQueue: a resource-handle queue seen through a string handle (TF's FakeQueueOp).
op_def_registry.register("FakeQueue", accumulator_handle_infer, ref_inputs=[0], stateful=True)
op_def_registry.register("ConditionalAccumulator", accumulator_handle_infer, stateful=True)
# TF 1.15's shape function gives this resource handle the shape of a string handle, [2].
op_def_registry.register(
    "ResourceConditionalAccumulator",
    op_def_registry.fixed((dtypes.resource, [2])),
    stateful=True,
)
for _op, _infer in _HANDLE_USERS.items():
    # The handle is a reference input: the placer keeps the op on the resource's task.
    op_def_registry.register(_op, _infer, ref_inputs=[0], stateful=True)
    if _op in LEGACY_NAMES:
        op_def_registry.register(LEGACY_NAMES[_op], _infer, ref_inputs=[0], stateful=True)
# The op types this module adds (gradients/data_flow_grad.py lists those with no gradient).
OP_TYPES = (
    *QUEUE_OPS,
    *LEGACY_QUEUE_OPS,
    "FakeQueue",
    "ConditionalAccumulator",
    "ResourceConditionalAccumulator",
    *_HANDLE_USERS,
    *LEGACY_NAMES.values(),
)


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _as_type_list(types: Any) -> list[dtypes.DType]:
    return [dtypes.as_dtype(d).base_dtype for d in _as_list(types)]


def _as_shape_list(
    shapes: Any, unknown_dim_allowed: bool = False, unknown_rank_allowed: bool = False
) -> list[TensorShape] | None:
    """TF's rule: a list of ints/None (even empty: a scalar) is one shape, else one per item."""
    if unknown_dim_allowed and (
        not isinstance(shapes, (list, tuple))
        or not shapes
        or any(s is None or isinstance(s, int) for s in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(
            "Shapes must be a TensorShape or a list or tuple of TensorShapes, got "
            f"{type(shapes)} instead."
        )
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    out = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in out):
        raise ValueError(f"All shapes must be fully defined: {out}")
    if not unknown_rank_allowed and any(s.ndims is None for s in out):
        raise ValueError(f"All shapes must have a defined rank: {out}")
    return out


def _as_name_list(names: Any, types: Sequence[Any]) -> list[str] | None:
    if names is None:
        return None
    names = _as_list(names)
    if len(names) != len(types):
        raise ValueError(
            "List of names must have the same length as the list of dtypes, received "
            f"len(names)={len(names)},len(dtypes)={len(types)}"
        )
    return list(names)


def _shape_common(s1: Any, s2: Any) -> TensorShape:
    """The most specific shape both shapes are instances of."""
    a, b = TensorShape(s1), TensorShape(s2)
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape(
        [x if x is not None and x == y else None for x, y in zip(a.as_list(), b.as_list())]
    )


def _queue_op(op_type: str, attrs: dict[str, Any], name: str) -> Tensor:
    return make_op(op_type, [], attrs, name=name).outputs[0]


def _queue_attrs(
    types: Sequence[dtypes.DType],
    shapes: Sequence[TensorShape] | None,
    capacity: int,
    shared_name: str | None,
) -> dict[str, Any]:
    return {
        "component_types": list(types),
        "shapes": list(shapes or []),
        "capacity": int(capacity),
        "container": "",
        "shared_name": shared_name or "",
    }


class QueueBase:
    """A queue of tuples of tensors (its components), shared through its resource handle."""

    def __init__(
        self,
        dtypes: Sequence[Any],
        shapes: Sequence[Any] | None,
        names: Sequence[str] | None,
        queue_ref: Tensor,
    ) -> None:
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, received "
                    f"len(shapes)={len(shapes)}, len(dtypes)={len(dtypes)}"
                )
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError(
                    f"Queue names must have the same length as dtypes,received "
                    f"len(names)={len(names)},len {len(dtypes)}"
                )
            self._names: list[str] | None = list(names)
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index: Any, queues: Sequence[QueueBase]) -> QueueBase:
        """A queue that is `queues[index]`, picked when the step runs."""
        if (
            not queues
            or not isinstance(queues, list)
            or not all(isinstance(q, QueueBase) for q in queues)
        ):
            raise TypeError("A list of queues expected")
        types = queues[0].dtypes
        if not all(types == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [functools.reduce(_shape_common, s) for s in zip(*[q.shapes for q in queues])]
        refs = array_ops.stack([q.queue_ref for q in queues])
        selected = array_ops.gather(refs, index)
        return QueueBase(dtypes=types, shapes=shapes, names=names, queue_ref=selected)

    @property
    def queue_ref(self) -> Tensor:
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list[dtypes.DType]:
        return self._dtypes

    @property
    def shapes(self) -> list[TensorShape]:
        return self._shapes

    @property
    def names(self) -> list[str] | None:
        return self._names

    def _check_enqueue_dtypes(self, vals: Any) -> list[Tensor]:
        if isinstance(vals, Mapping):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                    f"{sorted(vals.keys())},Queue: {sorted(self._names)}"
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        # As TF: extra values are ignored; missing ones fail when the step runs.
        return [
            convert_to_tensor(v, dtype=dt, name=f"component_{i}")
            for i, (v, dt) in enumerate(zip(vals, self._dtypes))
        ]

    @staticmethod
    def _scope_vals(vals: Any) -> list[Any]:
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, Mapping):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals: Any, name: str | None = None) -> Operation:
        """Adds one element; blocks while the queue is full."""
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            tensors = self._check_enqueue_dtypes(vals)
            for t, shape in zip(tensors, self._shapes):
                t.shape.assert_is_compatible_with(shape)
            attrs = {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1}
            return make_op("QueueEnqueueV2", [self._queue_ref, *tensors], attrs, name=scope)

    def enqueue_many(self, vals: Any, name: str | None = None) -> Operation:
        """Adds the slices along dimension 0 of every component, in order."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            tensors = self._check_enqueue_dtypes(vals)
            batch = Dimension(None)
            for t, shape in zip(tensors, self._shapes):
                lead = t.shape.with_rank_at_least(1)
                batch = batch.merge_with(lead.as_list()[0] if lead.ndims is not None else None)
                lead[1:].assert_is_compatible_with(shape)
            attrs = {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1}
            return make_op("QueueEnqueueManyV2", [self._queue_ref, *tensors], attrs, name=scope)

    def _dequeue_return_value(self, tensors: Sequence[Tensor]) -> Any:
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return list(tensors)

    def _component_attrs(self) -> dict[str, Any]:
        return {"component_types": list(self._dtypes), "timeout_ms": -1}

    def dequeue(self, name: str | None = None) -> Any:
        """Removes one element; blocks while the queue is empty (OutOfRange once closed)."""
        if name is None:
            name = f"{self._name}_Dequeue"
        with name_scope(name) as scope:
            op = make_op("QueueDequeueV2", [self._queue_ref], self._component_attrs(), scope)
        for out, shape in zip(op.outputs, self._shapes):
            out.set_shape(shape)
        return self._dequeue_return_value(op.outputs)

    def _dequeue_batch(self, op_type: str, n: Any, name: str, known_n: bool) -> Any:
        with name_scope(name) as scope:
            n_t = convert_to_tensor(n, dtype=dtypes.int32, name="n")
            op = make_op(op_type, [self._queue_ref, n_t], self._component_attrs(), scope)
        value = tensor_util.constant_value(n_t) if known_n else None
        lead = TensorShape([int(value) if value is not None else None])
        for out, shape in zip(op.outputs, self._shapes):
            out.set_shape(lead.concatenate(shape))
        return self._dequeue_return_value(op.outputs)

    def dequeue_many(self, n: Any, name: str | None = None) -> Any:
        """n elements stacked along a new dimension 0; blocks until there are n."""
        name = name if name is not None else f"{self._name}_DequeueMany"
        return self._dequeue_batch("QueueDequeueManyV2", n, name, known_n=True)

    def dequeue_up_to(self, n: Any, name: str | None = None) -> Any:
        """As dequeue_many, but a closed queue gives what it has left (at least one)."""
        name = name if name is not None else f"{self._name}_DequeueUpTo"
        return self._dequeue_batch("QueueDequeueUpToV2", n, name, known_n=False)

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None) -> Operation:
        """Closes the queue: no more enqueues; dequeues drain what is left, then OutOfRange."""
        if name is None:
            name = f"{self._name}_Close"
        attrs = {"cancel_pending_enqueues": bool(cancel_pending_enqueues)}
        return make_op("QueueCloseV2", [self._queue_ref], attrs, name=name)

    def is_closed(self, name: str | None = None) -> Tensor:
        if name is None:
            name = f"{self._name}_Is_Closed"
        return make_op("QueueIsClosedV2", [self._queue_ref], {}, name=name).outputs[0]

    def size(self, name: str | None = None) -> Tensor:
        if name is None:
            name = f"{self._name}_Size"
        return make_op("QueueSizeV2", [self._queue_ref], {}, name=name).outputs[0]


class FIFOQueue(QueueBase):
    """A first-in first-out queue; capacity < 0 means unbounded."""

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        shared_name: str | None = None,
        name: str = "fifo_queue",
    ) -> None:
        types = _as_type_list(dtypes)
        shape_list = _as_shape_list(shapes)
        name_list = _as_name_list(names, types)
        attrs = _queue_attrs(types, shape_list, capacity, shared_name)
        super().__init__(types, shape_list, name_list, _queue_op("FIFOQueueV2", attrs, name))


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose component shapes may have unknown dimensions: dequeue_many pads
    every component to the largest element of the batch (zeros, empty strings)."""

    def __init__(
        self,
        capacity: int,
        dtypes: Any,
        shapes: Any,
        names: Any = None,
        shared_name: str | None = None,
        name: str = "padding_fifo_queue",
    ) -> None:
        types = _as_type_list(dtypes)
        shape_list = _as_shape_list(shapes, unknown_dim_allowed=True) or []
        name_list = _as_name_list(names, types)
        if len(types) != len(shape_list):
            raise ValueError(
                f"Shapes must be provided for all components, but received {len(types)} "
                f"dtypes and {len(shape_list)} shapes."
            )
        attrs = _queue_attrs(types, shape_list, capacity, shared_name)
        ref = _queue_op("PaddingFIFOQueueV2", attrs, name)
        super().__init__(types, shape_list, name_list, ref)


class RandomShuffleQueue(QueueBase):
    """Dequeues elements in a random order, keeping at least min_after_dequeue elements
    (until it is closed) so that the order is well mixed."""

    def __init__(
        self,
        capacity: int,
        min_after_dequeue: int,
        dtypes: Any,
        shapes: Any = None,
        names: Any = None,
        seed: int | None = None,
        shared_name: str | None = None,
        name: str = "random_shuffle_queue",
    ) -> None:
        types = _as_type_list(dtypes)
        shape_list = _as_shape_list(shapes)
        name_list = _as_name_list(names, types)
        seed1, seed2 = get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # Queues sharing a name under a graph seed draw the same order, whatever other
            # ops the graphs made first (TF's rule).
            digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        seed1, seed2 = int(seed1 or 0) % _MAXINT32, int(seed2 or 0) % _MAXINT32
        attrs = _queue_attrs(types, shape_list, capacity, shared_name)
        attrs.update(min_after_dequeue=int(min_after_dequeue), seed=seed1, seed2=seed2)
        ref = _queue_op("RandomShuffleQueueV2", attrs, name)
        super().__init__(types, shape_list, name_list, ref)


class PriorityQueue(QueueBase):
    """Dequeues the element of lowest priority first: component 0 of every element is its
    int64 scalar priority, ahead of the `types` given."""

    def __init__(
        self,
        capacity: int,
        types: Any,
        shapes: Any = None,
        names: Any = None,
        shared_name: str | None = None,
        name: str = "priority_queue",
    ) -> None:
        type_list = _as_type_list(types)
        shape_list = _as_shape_list(shapes)
        attrs = _queue_attrs(type_list, shape_list, capacity, shared_name)
        ref = _queue_op("PriorityQueueV2", attrs, name)
        priority_types = [dtypes.int64, *type_list]
        priority_shapes = [TensorShape([]), *shape_list] if shape_list else shape_list
        super().__init__(priority_types, priority_shapes, names, ref)


def _dtype(d: Any) -> dtypes.DType:
    return dtypes.as_dtype(d).base_dtype


class ConditionalAccumulatorBase:
    """What every conditional accumulator has (tf.ConditionalAccumulatorBase): its resource
    tensor, name and dtype, num_accumulated and set_global_step."""

    def __init__(self, dtype: Any, shape: Any, accumulator_ref: Tensor) -> None:
        self._dtype = dtype
        self._shape = as_shape(shape) if shape is not None else TensorShape(None)
        self._accumulator_ref = accumulator_ref
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


class ConditionalAccumulator(ConditionalAccumulatorBase):
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
        ref = make_op("ConditionalAccumulator", [], attrs, name=name).outputs[0]
        super().__init__(self._dtype, self._shape, ref)

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
                {"dtype": self._dtype},
                name=name or "AccumulatorTakeGradient",
            ).outputs[0]


def _int64(x: Any) -> Tensor:
    t = convert_to_tensor(x)
    if t.dtype.base_dtype != dtypes.int64:
        t = math_ops.cast(t, dtypes.int64)
    return t


__all__ = ["ConditionalAccumulator", "FIFOQueue", "QueueBase"]
