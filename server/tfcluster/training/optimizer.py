"""tf.train.Optimizer: compute_gradients, apply_gradients and minimize, with slot variables.

As in TF1: update ops are built in a name scope per variable ('update_<var>') colocated with
the variable, so with replica_device_setter they run on the ps that holds the variable; the
global step is incremented after every update ran. A gradient that is an IndexedSlices (a
gather's, an embedding lookup's) is applied sparsely: its repeated rows summed
(_deduplicate_indexed_slices), then `_apply_sparse` updates only those rows, so only they
travel to the ps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.indexed_slices import (
    IndexedSlices,
    convert_to_tensor_or_indexed_slices,
)
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.ops import array_ops, math_ops, resource_variable_ops, segment_ops, state_ops
from tfcluster.ops import indexed_slices_ops as _dense_conversion  # noqa: F401 - registers it
from tfcluster.ops.control_flow_ops import group, tuple_
from tfcluster.ops.variables import Variable, is_resource_variable
from tfcluster.training import distribution_context, slot_creator

# In the order TF 1.15's error lists them (its set's).
_VALID_LOSS_DTYPES = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)


def _deduplicate_indexed_slices(values: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
    """(summed values, unique indices): the rows of `values` for the same index added up."""
    unique_indices, new_index_positions = array_ops.unique(indices)
    summed_values = segment_ops.unsorted_segment_sum(
        values, new_index_positions, array_ops.shape(unique_indices)[0]
    )
    return summed_values, unique_indices


def _var_key(var: Any) -> Any:
    return (var.op.graph, var.op.name)


def _container_of(var: Any) -> Any:
    """The MirroredVariable `var` is one copy of (None for a plain variable)."""
    ref = getattr(var, "_distributed_container", None)
    return ref() if ref is not None else None


def _strategy() -> Any:
    ctx = distribution_context.current()
    return None if ctx is None else ctx.strategy


def _ref_of(var: Any) -> Tensor:
    if hasattr(var, "_ref") and callable(var._ref):
        return var._ref()  # type: ignore[no-any-return]
    if isinstance(var, Tensor) and var.dtype.is_ref_dtype:
        return var
    raise TypeError(f"Argument is not a tf.Variable: {var}")


class Optimizer:
    """Base class: subclasses implement _create_slots, _prepare and _apply_dense."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        # slot name -> {var key: slot variable}
        self._slots: dict[str, dict[Any, Any]] = {}
        # (name, graph) -> variable that is not per-variable (e.g. Adam's beta1_power)
        self._non_slot_dict: dict[tuple[str, Any], Any] = {}

    def get_name(self) -> str:
        return self._name

    # ---- the public API ----------------------------------------------------------------
    def minimize(
        self,
        loss: Any,
        global_step: Any = None,
        var_list: Sequence[Any] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: Any = None,
    ) -> Operation:
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} "
                f"and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss: Any,
        var_list: Sequence[Any] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Any = None,
    ) -> list[tuple[Any, Any]]:
        """[(gradient or None, variable)] for the variables in var_list (default: trainable);
        a gradient is a Tensor or an IndexedSlices."""
        if callable(loss) and not isinstance(loss, Tensor):
            loss = loss()
        loss = self._scale_loss(loss)
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                f"gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH. Not {gate_gradients}"
            )
        # As TF 1.15: the loss is not converted; one that is no tensor fails on its dtype.
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = get_collection(GraphKeys.TRAINABLE_VARIABLES) + get_collection(
                GraphKeys.TRAINABLE_VARIABLES + "_resource"
            )
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        var_refs = [_ref_of(v) for v in var_list]
        grads = gradients(
            loss,
            var_refs,
            grad_ys=grad_loss,
            gate_gradients=(gate_gradients == Optimizer.GATE_OP),
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
        )
        if gate_gradients == Optimizer.GATE_GRAPH:
            present = [g for g in grads if g is not None]
            gated = iter(tuple_(present)) if present else iter(())
            grads = [next(gated) if g is not None else None for g in grads]
        grads_and_vars = list(zip(grads, var_list))
        # TF 1.15 checks the variables themselves (a distributed one by its own dtype).
        self._assert_valid_dtypes(
            [v for g, v in grads_and_vars if g is not None and v.dtype != dtypes.resource]
        )
        return grads_and_vars

    @staticmethod
    def _scale_loss(loss: Any) -> Any:
        """An Estimator training under a strategy with several replicas divides a MEAN loss
        by their number, so that the replicas' summed gradients are the mean's (TF's rule)."""
        graph = get_default_graph()
        graph._is_loss_scaled_by_optimizer = False  # type: ignore[attr-defined]
        strategy = _strategy()
        if strategy is None or not distribution_context.loss_reduction_is_mean():
            return loss
        replicas = strategy.num_replicas_in_sync
        if replicas > 1:
            graph._is_loss_scaled_by_optimizer = True  # type: ignore[attr-defined]
            return loss * (1.0 / replicas)
        return loss

    def apply_gradients(
        self,
        grads_and_vars: Sequence[tuple[Any, Any]],
        global_step: Any = None,
        name: str | None = None,
    ) -> Operation:
        """Applies the gradients; increments global_step (if given) once every update ran.
        Under a tf.distribute strategy (in replica context) the replicas' gradients are summed
        first and every copy of each variable updated, as TF's optimizers do."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        if distribution_context.has_strategy():
            ctx = distribution_context.current()
            assert ctx is not None
            if ctx.replica_context is None:
                raise RuntimeError(
                    "Use `_distributed_apply()` instead of `apply_gradients()` in a "
                    "cross-replica context."
                )
            filtered = tuple((g, v) for g, v in grads_and_vars if g is not None)
            if not filtered:
                names = [str(v) for _, v in grads_and_vars]
                raise ValueError(f"No gradients provided for any variable: {names}.")
            return ctx.replica_context.merge_call(  # type: ignore[no-any-return]
                self._distributed_apply, args=(filtered, global_step, name)
            )
        converted: list[tuple[Any, Any]] = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError(
                        f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                    ) from None
                if not isinstance(g, Tensor | IndexedSlices):
                    raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
            _ref_of(v)
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(
                f"No gradients provided for any variable: {[str(v) for _, v in converted]}."
            )
        graph = get_default_graph()
        # Slots are made outside any control-dependency scope, as TF's init_scope does.
        with control_dependencies(None):
            self._create_slots(var_list)
        update_ops: list[Any] = []
        with name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name), colocate_with(var.op):
                    update_ops.append(self._update_op(grad, var))
            # The scope string itself ('Adam/') names the op verbatim: 'Adam', as in TF.
            op_name = scope or self._name
            if global_step is None:
                apply_updates = self._finish(update_ops, op_name)
            else:
                finish = self._finish(update_ops, "update")
                with control_dependencies([finish]), colocate_with(_ref_of(global_step).op):
                    apply_updates = _increment(global_step, op_name)
        train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    def _distributed_apply(
        self,
        distribution: Any,
        grads_and_vars: Sequence[tuple[Any, Any]],
        global_step: Any = None,
        name: str | None = None,
    ) -> Any:
        """apply_gradients in cross-replica context: the gradients (PerReplica) summed onto
        each variable's devices, then each copy updated in 'update_<i>' scopes."""
        reduced = distribution.extended.batch_reduce_to("SUM", list(grads_and_vars))
        var_list = [v for _, v in grads_and_vars]
        with control_dependencies(None):
            self._create_slots(var_list)

        def update(v: Any, g: Any) -> Any:
            try:
                g = convert_to_tensor_or_indexed_slices(g)
            except TypeError:
                raise TypeError(
                    f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                ) from None
            if not isinstance(g, Tensor | IndexedSlices):
                raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
            with name_scope("update_" + v.op.name):
                return self._update_op(g, v)

        graph = get_default_graph()
        with name_scope(name, self._name) as scope:
            self._prepare()
            update_ops = [
                op
                for grad, var in zip(reduced, var_list)
                for op in distribution.extended.update(var, update, args=(grad,), group=False)
            ]

            def finish(self: Optimizer, update_ops: list[Any]) -> Any:
                return self._finish(update_ops, "update")

            non_slot_devices = distribution.extended.non_slot_devices(var_list)
            finish_updates = distribution.extended.update_non_slot(
                non_slot_devices, finish, args=(self, update_ops), group=False
            )
            op_name = scope or self._name
            if global_step is None:
                apply_updates = distribution.group(finish_updates, name=op_name)
            else:
                # Copies of a mirrored step are incremented in scopes of their own (TF's
                # resource variables ignore the name there; one name would clash).
                step_kwargs = {} if hasattr(global_step, "_component") else {"name": op_name}
                with control_dependencies(list(finish_updates)):
                    apply_updates = distribution.extended.update(
                        global_step, _increment_step, kwargs=step_kwargs
                    )
        if isinstance(apply_updates, Tensor):
            apply_updates = apply_updates.op
        train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        return apply_updates

    def _update_op(self, grad: Any, var: Any) -> Any:
        """The update of one variable: dense, then its constraint; or sparse (TF refuses a
        constraint there)."""
        constraint = getattr(var, "constraint", None)
        resource = is_resource_variable(var)
        if isinstance(grad, Tensor):
            if resource and self._overrides("_resource_apply_dense"):
                update = self._resource_apply_dense(grad, var)
            else:
                update = self._apply_dense(grad, var)
            if constraint is None:
                return update
            # TF's ref read aliases the variable and so sees the update; here the
            # constraint gets a read made after it (not the variable's snapshot).
            with control_dependencies([update]):
                return var.assign(constraint(var.read_value()))
        if constraint is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        if resource and (
            self._overrides("_resource_apply_sparse")
            or self._overrides("_resource_apply_sparse_duplicate_indices")
        ):
            return self._resource_apply_sparse_duplicate_indices(grad.values, var, grad.indices)
        return self._apply_sparse_duplicate_indices(grad, var)

    def _overrides(self, method: str) -> bool:
        """Whether this optimizer's class defines `method` itself (a program's optimizer with
        TF's resource-variable updates): tfcluster's own optimizers update resource variables
        through _apply_dense / _apply_sparse, as TF's do through their _resource_apply_*."""
        return getattr(type(self), method) is not getattr(Optimizer, method)

    # ---- slots -------------------------------------------------------------------------
    def get_slot(self, var: Any, name: str) -> Any:
        named = self._slots.get(name)
        if not named:
            return None
        container = _container_of(var)
        if container is not None:
            # One copy of a mirrored variable: the same copy of the mirrored slot.
            slot = named.get(_var_key(container))
            if slot is None:
                return None
            index = next(i for i, v in enumerate(container.values) if v is var)
            return slot.values[index]
        return named.get(_var_key(var))

    def get_slot_names(self) -> list[str]:
        return sorted(self._slots)

    def variables(self) -> list[Any]:
        """The optimizer's own variables (slots and non-slot accumulators), by name."""
        current = get_default_graph()
        found = [v for (_, g), v in self._non_slot_dict.items() if g is current]
        for named in self._slots.values():
            found.extend(v for (g, _), v in named.items() if g is current)
        return sorted(found, key=lambda v: v.name)

    def _slot_dict(self, slot_name: str) -> dict[Any, Any]:
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Any:
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_zeros_slot(var, op_name)
        return named[key]

    def _get_or_make_slot(self, var: Any, val: Any, slot_name: str, op_name: str) -> Any:
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_slot(var, val, op_name)
        return named[key]

    def _get_or_make_slot_with_initializer(
        self,
        var: Any,
        initializer: Callable[..., Any],
        shape: Any,
        dtype: Any,
        slot_name: str,
        op_name: str,
    ) -> Any:
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name
            )
        return named[key]

    def _create_non_slot_variable(self, initial_value: Any, name: str, colocate_with: Any) -> Any:
        """An extra variable of the optimizer, not a slot, colocated with `colocate_with` (TF
        1.15's argument names: programs' own optimizers pass them by keyword)."""
        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            strategy = _strategy()
            with graph.as_default():
                # Resource variables get resource accumulators (TF's use_resource rule).
                use_resource = is_resource_variable(colocate_with)
                if strategy is not None:
                    with strategy.extended.colocate_vars_with(colocate_with):
                        v = Variable(
                            initial_value, name=name, trainable=False, use_resource=use_resource
                        )
                else:
                    with _colocate_with(colocate_with.op):
                        v = Variable(
                            initial_value, name=name, trainable=False, use_resource=use_resource
                        )
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> Any:
        v: Any = self._non_slot_dict.get((name, graph or get_default_graph()))
        index = distribution_context.update_replica()
        if index is not None and hasattr(v, "values") and hasattr(v, "_component"):
            # A mirrored non-slot variable (Adam's beta1_power) while one copy is updated.
            return v.values[index]
        return v

    # ---- what subclasses implement -------------------------------------------------------
    def _create_slots(self, var_list: list[Any]) -> None:
        """Makes the slot variables the updates need (none by default)."""

    def _prepare(self) -> None:
        """Makes the hyperparameter tensors, once per apply_gradients."""

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_dense")

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        """The sparse update with repeated rows summed first (TF's default; an optimizer that
        handles repeats itself overrides this)."""
        summed_values, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(
            IndexedSlices(summed_values, unique_indices, grad.dense_shape), var
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        """Applies an IndexedSlices without repeated rows to `var`, touching only its rows."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_sparse")

    def _resource_apply_dense(self, grad: Tensor, handle: Any) -> Any:
        """TF's update of a resource variable by a dense gradient, for a program's optimizer
        to define (TF 1.15 passes the variable itself as `handle`)."""
        raise NotImplementedError()

    def _resource_apply_sparse_duplicate_indices(
        self, grad: Tensor, handle: Any, indices: Tensor
    ) -> Any:
        """TF's sparse update of a resource variable: repeated rows summed, then
        _resource_apply_sparse."""
        summed_grad, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed_grad, handle, unique_indices)

    def _resource_apply_sparse(self, grad: Tensor, handle: Any, indices: Tensor) -> Any:
        """TF's update of a resource variable's rows `indices`, for a program's optimizer to
        define."""
        raise NotImplementedError()

    def _finish(self, update_ops: list[Any], name_scope: str) -> Operation:
        return group(*update_ops, name=name_scope)

    # ---- helpers -------------------------------------------------------------------------
    def _assert_valid_dtypes(self, tensors: Sequence[Any]) -> None:
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in _VALID_LOSS_DTYPES:
                raise ValueError(
                    f"Invalid type {dtype!r} for {t.name}, expected: "
                    f"[{', '.join(repr(d) for d in _VALID_LOSS_DTYPES)}]."
                )

    @staticmethod
    def _call_if_callable(param: Any) -> Any:
        return param() if callable(param) else param

    def _hyper(self, value: Any, name: str) -> Tensor:
        return convert_to_tensor(self._call_if_callable(value), name=name)


def cast_like(t: Tensor, var: Any) -> Tensor:
    """`t` in the variable's dtype (the same tensor when it already is)."""
    base = var.dtype.base_dtype
    if t.dtype.base_dtype == base:
        return t
    return math_ops.cast(t, base)


__all__ = ["Optimizer"]


def _increment_step(step: Any, name: str | None = None) -> Any:
    # TF 1.15's update_global_step: the increment alone, not a read after it.
    return step.assign_add(1, read_value=False, name=name)


def _increment(global_step: Any, name: str) -> Operation:
    """global_step += 1: on a resource variable TF 1.15 makes a bare AssignAddVariableOp of a
    Const (no read of the new value), else an AssignAdd."""
    if is_resource_variable(global_step):
        one = convert_to_tensor(1, dtype=global_step.dtype.base_dtype)
        return resource_variable_ops.assign_op("AssignAddVariableOp", global_step.handle, one, name)
    return state_ops.assign_add(global_step, 1, name=name).op


_colocate_with = colocate_with
