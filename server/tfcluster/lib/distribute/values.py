"""The values of a strategy with several replicas: PerReplica (one value per replica, e.g. what
experimental_run_v2 returns), Mirrored (the same value on every replica's device) and
MirroredVariable (one tf.Variable per device, kept equal by updating every copy).

A MirroredVariable reads as the copy of the replica that runs (in replica context), the copy
being updated (inside StrategyExtended.update) or the first copy (cross-replica context).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework.graph import Operation, Tensor, register_tensor_conversion_function
from tfcluster.lib.distribute import reduce_util
from tfcluster.ops import math_ops, nest
from tfcluster.ops.variables import VariableAggregation, is_resource_variable
from tfcluster.training import distribution_context
from tfcluster.training.saver import SaveableObject, SaveSpec


def current_local_index(strategy: Any = None) -> int | None:
    """The index (among this worker's replicas) of the replica running or being updated."""
    ctx = distribution_context.current()
    if ctx is None:
        return None
    if ctx.update_replica is not None:
        return ctx.update_replica
    if ctx.replica_context is not None:
        if strategy is not None and ctx.strategy is not strategy:
            return None
        return ctx.replica_context._local_index  # type: ignore[no-any-return]
    return None


class DistributedValues:
    """One value per replica of this worker, in the order of the strategy's devices."""

    def __init__(self, devices: Sequence[str], values: Sequence[Any]) -> None:
        if len(devices) != len(values):
            raise ValueError(f"{len(values)} values for {len(devices)} devices")
        self._devices = tuple(devices)
        self._values = tuple(values)

    @property
    def values(self) -> tuple[Any, ...]:
        return self._values

    @property
    def devices(self) -> tuple[str, ...]:
        return self._devices

    @property
    def primary(self) -> Any:
        return self._values[0]

    def get(self, device: str | None = None) -> Any:
        if device is not None:
            if device not in self._devices:
                raise ValueError(f"Device {device} not found in {self._devices}")
            return self._values[self._devices.index(device)]
        index = current_local_index()
        if index is None:
            raise ValueError(
                f"DistributedValues.get() of {type(self).__name__} needs a replica or update "
                "context (or a device) to know which replica's value to give"
            )
        return self._values[index]

    def __repr__(self) -> str:
        lines = [f"  {i} {d}: {v!r}" for i, (d, v) in enumerate(zip(self._devices, self._values))]
        return f"{type(self).__name__}:{{\n" + ",\n".join(lines) + "\n}"


class PerReplica(DistributedValues):
    """Values that differ per replica."""


class Mirrored(DistributedValues):
    """The same value on every replica's device; cross-replica reads see the first."""

    def get(self, device: str | None = None) -> Any:
        if device is None and current_local_index() is None:
            return self.primary
        return super().get(device)


class MirroredVariable(Mirrored):
    """tf.Variable made in a MirroredStrategy scope: one copy per device, the first named as
    the variable and the others '<name>/replica_<i>'."""

    def __init__(
        self, strategy: Any, devices: Sequence[str], values: Sequence[Any], aggregation: Any
    ) -> None:
        super().__init__(devices, values)
        self._strategy = strategy
        self._aggregation = aggregation
        ref = weakref.ref(self)
        for v in values:
            v._distributed_container = ref

    # ---- which copy ------------------------------------------------------------------
    def _component(self) -> Any:
        index = current_local_index(self._strategy)
        return self._values[0 if index is None else index]

    @property
    def distribute_strategy(self) -> Any:
        return self._strategy

    # ---- tf.Variable's properties: the first copy's ---------------------------------
    name = property(lambda self: self.primary.name)
    op = property(lambda self: self.primary.op)
    dtype = property(lambda self: self.primary.dtype)
    shape = property(lambda self: self.primary.shape)
    graph = property(lambda self: self.primary.graph)
    trainable = property(lambda self: self.primary.trainable)
    constraint = property(lambda self: self.primary.constraint)
    synchronization = property(lambda self: self.primary.synchronization)
    initial_value = property(lambda self: self.primary.initial_value)
    aggregation = property(lambda self: self._aggregation)

    @property
    def device(self) -> str:
        return self._component().device  # type: ignore[no-any-return]

    @property
    def initializer(self) -> Operation:
        from tfcluster.ops.control_flow_ops import group

        return group(*[v.initializer for v in self._values])

    def get_shape(self) -> Any:
        return self.primary.get_shape()

    def _ref(self) -> Tensor:
        return self._component()._ref()  # type: ignore[no-any-return]

    def _as_graph_element(self) -> Tensor:
        return self._component()._as_graph_element()  # type: ignore[no-any-return]

    def value(self) -> Tensor:
        return self._component().value()  # type: ignore[no-any-return]

    def read_value(self) -> Tensor:
        return self._component().read_value()  # type: ignore[no-any-return]

    def initialized_value(self) -> Tensor:
        return self._component().initialized_value()  # type: ignore[no-any-return]

    def eval(self, session: Any = None) -> Any:
        return self.primary.eval(session)

    def is_initialized(self, name: str | None = None) -> Tensor:
        """Whether every copy is initialized: TF's pairwise logical_and chain, from the first
        copy to the last (the last named `name`)."""
        from tfcluster.ops import math_ops

        result = self.primary.is_initialized()
        for v in self._values[1:-1]:
            result = math_ops.logical_and(result, v.is_initialized())
        return math_ops.logical_and(  # type: ignore[no-any-return]
            result, self._values[-1].is_initialized(), name=name
        )

    def load(self, value: Any, session: Any = None) -> None:
        for v in self._values:
            v.load(value, session)

    def to_proto(self, export_scope: str | None = None) -> Any:
        return self.primary.to_proto(export_scope)

    def _get_save_slice_info(self) -> Any:
        return self.primary._get_save_slice_info()

    def _set_save_slice_info(self, info: Any) -> None:
        # A part of a partitioned variable: every copy is that part.
        for v in self._values:
            v._set_save_slice_info(info)

    @property
    def _save_slice_info(self) -> Any:
        return self.primary._get_save_slice_info()

    def _to_saveable(self, slice_spec: str = "", name: str | None = None) -> Any:
        return _MirroredSaveable(self, slice_spec, name)

    # ---- updates: every copy ---------------------------------------------------------
    def _assign(self, method: str, value: Any, use_locking: bool, name: Any, read: bool) -> Any:
        def update(var: Any, new: Any) -> Any:
            return getattr(var, method)(new, use_locking=use_locking, name=name)

        ctx = distribution_context.current()
        if ctx is not None and ctx.update_replica is not None:
            return update(self._component(), value)
        if ctx is not None and ctx.replica_context is not None:
            if self._aggregation == VariableAggregation.NONE:
                raise ValueError(
                    "You must specify an aggregation method to update a MirroredVariable in "
                    "Replica Context. You can do so by passing an explicit value for argument "
                    "`aggregation` to tf.Variable(..).e.g. `tf.Variable(..., "
                    "aggregation=tf.VariableAggregation.SUM)``tf.VariableAggregation` lists the "
                    "possible aggregation methods.This is required because MirroredVariable "
                    "should always be kept in sync. When updating them or assigning to them in a "
                    "replica context, we automatically try to aggregate the values before "
                    "updating "
                )

            def merge_fn(strategy: Any, per_replica: Any) -> Any:
                if self._aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
                    first = (
                        per_replica.values[0]
                        if isinstance(per_replica, PerReplica)
                        else per_replica
                    )
                    reduced = strategy.extended.broadcast_to(first, self)
                else:
                    op = reduce_util.ReduceOp.from_variable_aggregation(self._aggregation)
                    reduced = strategy.extended.reduce_to(op, per_replica, self)
                return strategy.extended.update(self, update, args=(reduced,), group=False)

            return ctx.replica_context.merge_call(merge_fn, args=(value,))
        return self._strategy.extended.update(self, update, args=(value,), group=False)

    def assign(
        self, value: Any, use_locking: bool = False, name: Any = None, read_value: bool = True
    ) -> Any:
        return self._assign("assign", value, use_locking, name, read_value)

    def assign_add(
        self, delta: Any, use_locking: bool = False, name: Any = None, read_value: bool = True
    ) -> Any:
        return self._assign("assign_add", delta, use_locking, name, read_value)

    def assign_sub(
        self, delta: Any, use_locking: bool = False, name: Any = None, read_value: bool = True
    ) -> Any:
        return self._assign("assign_sub", delta, use_locking, name, read_value)

    def __repr__(self) -> str:
        return f"<MirroredVariable {self.name} shape={self.shape} dtype={self.dtype.name}>"

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __iter__(self) -> Any:
        raise TypeError("'MirroredVariable' object is not iterable.")

    def __bool__(self) -> bool:
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")


class SyncOnReadVariable(MirroredVariable):
    """A variable made with synchronization=ON_READ (tf.metrics' totals): each replica
    updates its own copy; a read in cross-replica context combines the copies as its
    aggregation says (SUM, MEAN, or the first copy)."""

    def _cross_replica(self) -> bool:
        return current_local_index(self._strategy) is None

    def _get_cross_replica(self) -> Any:
        if self._aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
            return self.primary.value()
        op = reduce_util.ReduceOp.from_variable_aggregation(self._aggregation)
        return self._strategy.reduce(op, self, axis=None)

    def value(self) -> Tensor:
        if self._cross_replica():
            from tfcluster.framework.graph import convert_to_tensor

            return convert_to_tensor(self._get_cross_replica())
        return super().value()

    def read_value(self) -> Tensor:
        return self.value()

    def _as_graph_element(self) -> Tensor:
        return self.value() if self._cross_replica() else super()._as_graph_element()

    def _each_copy(self, method: str, value: Any) -> Any:
        from tfcluster.framework.graph import device
        from tfcluster.ops.control_flow_ops import group

        updates = []
        for copy in self._values:
            with device(copy.device):
                updates.append(getattr(copy, method)(value))
        return group(*updates)

    def assign(
        self, value: Any, use_locking: bool = False, name: Any = None, read_value: bool = True
    ) -> Any:
        if not self._cross_replica():
            return self._component().assign(value, use_locking=use_locking, name=name)
        if self._aggregation == VariableAggregation.SUM:
            value = value * (1.0 / len(self._values))
        return self._each_copy("assign", value)

    def _cross_replica_delta(self, method: str, delta: Any, use_locking: bool, name: Any) -> Any:
        if not self._cross_replica():
            return getattr(self._component(), method)(delta, use_locking=use_locking, name=name)
        if self._aggregation == VariableAggregation.SUM:
            raise ValueError(
                f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                "aggregation is set to `tf.VariableAggregation.SUM`."
            )
        return self._each_copy(method, delta)

    def assign_add(
        self, delta: Any, use_locking: bool = False, name: Any = None, read_value: bool = True
    ) -> Any:
        return self._cross_replica_delta("assign_add", delta, use_locking, name)

    def assign_sub(
        self, delta: Any, use_locking: bool = False, name: Any = None, read_value: bool = True
    ) -> Any:
        return self._cross_replica_delta("assign_sub", delta, use_locking, name)

    def eval(self, session: Any = None) -> Any:
        from tfcluster.framework.default_session import get_default_session

        return (session or get_default_session()).run(self.value())

    def _to_saveable(self, slice_spec: str = "", name: str | None = None) -> Any:
        return _SyncOnReadSaveable(self, slice_spec, name)

    def __repr__(self) -> str:
        return f"<SyncOnReadVariable {self.name} shape={self.shape} dtype={self.dtype.name}>"


class _MirroredSaveable(SaveableObject):
    """Saves the first copy under the variable's name; a restore assigns every copy."""

    def __init__(self, var: MirroredVariable, slice_spec: str, name: str | None) -> None:
        primary = var.primary
        name = name or primary.op.name
        spec = SaveSpec(primary.value(), slice_spec, name, primary.dtype.base_dtype, primary.device)
        super().__init__(var, [spec], name)
        self._var = var

    def restore(self, restored_tensors: Sequence[Tensor], restored_shapes: Any) -> Operation:
        from tfcluster.framework.graph import device
        from tfcluster.ops import array_ops, state_ops
        from tfcluster.ops.control_flow_ops import group

        value = restored_tensors[0]
        if restored_shapes is not None:
            value = array_ops.reshape(value, restored_shapes[0])
        assigns = []
        for copy in self._var.values:
            with device(copy.device):
                if is_resource_variable(copy):
                    assigns.append(copy.assign(value, read_value=False))
                else:
                    assigns.append(state_ops.assign(copy._ref(), value).op)
        return group(*assigns)


class _SyncOnReadSaveable(SaveableObject):
    """Saves the combined value; a restore gives each copy its share (SUM: value / copies)."""

    def __init__(self, var: SyncOnReadVariable, slice_spec: str, name: str | None) -> None:
        primary = var.primary
        name = name or primary.op.name
        with distribution_context_scope(var):
            tensor = var.value()
        # The variable's dtype (a resource copy's handle is a `resource` tensor).
        spec = SaveSpec(tensor, slice_spec, name, primary.dtype.base_dtype, primary.device)
        super().__init__(var, [spec], name)
        self._var = var

    def restore(self, restored_tensors: Sequence[Tensor], restored_shapes: Any) -> Operation:
        from tfcluster.ops import array_ops

        value = restored_tensors[0]
        if restored_shapes is not None:
            value = array_ops.reshape(value, restored_shapes[0])
        return self._var.assign(value)  # type: ignore[no-any-return]


def distribution_context_scope(var: MirroredVariable) -> Any:
    """Cross-replica context of the variable's strategy (a Saver is built outside scopes)."""
    import contextlib

    ctx = distribution_context.current()
    if ctx is not None and ctx.strategy is var._strategy:
        return contextlib.nullcontext()
    return var._strategy.scope()


def _mirrored_conversion(
    v: MirroredVariable, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Tensor:
    if as_ref:
        return v._ref()  # type: ignore[no-any-return]
    if type(v) is MirroredVariable and _in_cross_replica_context():
        # TF 1.15 reads a MirroredVariable in cross-replica context (a model built in
        # strategy.scope()) through array_ops.identity of a copy: its `Identity/ReadVariableOp`
        # and `Identity` ops shift the op-level seeds of the random ops made after them. The
        # copies are equal; TF picks the one of the current device scope, here the first.
        from tfcluster.ops import array_ops

        return array_ops.identity(v.primary)  # type: ignore[no-any-return]
    return v.value()


def _in_cross_replica_context() -> bool:
    ctx = distribution_context.current()
    return ctx is not None and ctx.replica_context is None and ctx.update_replica is None


register_tensor_conversion_function(MirroredVariable, _mirrored_conversion)
math_ops.install_operator_overloads(MirroredVariable)


def _per_replica_conversion(
    v: DistributedValues, dtype: Any = None, name: Any = None, as_ref: bool = False
) -> Any:
    # In replica context a PerReplica/Mirrored argument is that replica's value.
    from tfcluster.framework.graph import convert_to_tensor

    return convert_to_tensor(v.get(), dtype=dtype, name=name, as_ref=as_ref)


register_tensor_conversion_function(PerReplica, _per_replica_conversion)
register_tensor_conversion_function(Mirrored, _per_replica_conversion)


# ---- structures of per-replica values --------------------------------------------------
def select_replica(index: int, structure: Any) -> Any:
    """`structure` with every DistributedValues replaced by replica `index`'s value."""

    def pick(x: Any) -> Any:
        if isinstance(x, MirroredVariable):
            return x
        return x.values[index] if isinstance(x, DistributedValues) else x

    return nest.map_structure(pick, structure)


def regroup(devices: Sequence[str], per_replica: Sequence[Any], wrap: type = PerReplica) -> Any:
    """A list of structures (one per replica) -> one structure of `wrap` values, walking
    tuples (namedtuples rebuilt with `_make`, so an EstimatorSpec is not re-validated), lists
    and dicts. Leaves that are the same object on every replica stay as they are, and the
    copies of one MirroredVariable become it; with one replica the values themselves are
    returned, as TF does."""
    first = per_replica[0]
    if isinstance(first, (list, tuple)) and not isinstance(first, DistributedValues):
        for v in per_replica[1:]:
            if not isinstance(v, type(first)) or len(v) != len(first):
                raise ValueError("The replicas returned structures of different shapes")
        items = [regroup(devices, [v[i] for v in per_replica], wrap) for i in range(len(first))]
        if hasattr(type(first), "_fields"):
            return type(first)._make(items)  # type: ignore[union-attr]
        return type(first)(items) if isinstance(first, tuple) else items
    if isinstance(first, dict):
        for v in per_replica[1:]:
            if not isinstance(v, dict) or set(v) != set(first):
                raise ValueError("The replicas returned dicts with different keys")
        return type(first)((k, regroup(devices, [v[k] for v in per_replica], wrap)) for k in first)
    if all(v is first for v in per_replica):
        container = _container(first)
        return first if container is None else container
    container = _container(first)
    if container is not None and all(
        _container(v) is container and v is container.values[i] for i, v in enumerate(per_replica)
    ):
        return container
    return wrap(devices, per_replica)


def _container(value: Any) -> Any:
    ref = getattr(value, "_distributed_container", None)
    if ref is None or isinstance(value, DistributedValues):
        return None
    return ref()


def local_results(value: Any) -> tuple[Any, ...]:
    if isinstance(value, DistributedValues):
        return value.values
    return (value,)


def map_values(fn: Callable[[Any], Any], value: DistributedValues) -> DistributedValues:
    return type(value)(value.devices, [fn(v) for v in value.values])
