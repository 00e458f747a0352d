"""Moving averages of variables (TF's training/moving_averages): assign_moving_average and
tf.train.ExponentialMovingAverage, whose shadow variables are slots named
'<var>/ExponentialMovingAverage', colocated with (so on the same ps task as) their variable."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    get_default_graph,
    init_scope,
    name_scope,
)
from tfcluster.ops import control_flow_ops, init_ops, math_ops, state_ops, variable_scope
from tfcluster.ops.variables import (
    Variable,
    global_variables,
    is_resource_variable,
    moving_average_variables,
    trainable_variables,
)
from tfcluster.training import slot_creator

_FLOAT_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64)
_VARIABLE_OP_TYPES = ("Variable", "VariableV2", "VarHandleOp")


def assign_moving_average(
    variable: Any, value: Any, decay: Any, zero_debias: bool = True, name: str | None = None
) -> Tensor:
    """variable -= (1 - decay) * (variable - value); with zero_debias the average is kept
    in a 'biased' twin and divided by 1 - decay ** updates (Adam's bias correction)."""
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        one_minus_decay = convert_to_tensor(1.0 - decay, name="decay")
        if one_minus_decay.dtype != variable.dtype.base_dtype:
            one_minus_decay = math_ops.cast(one_minus_decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, one_minus_decay)
        return state_ops.assign_sub(variable, (variable - value) * one_minus_decay, name=scope)


def _unique_in_scope(name: str) -> str:
    """`name`, or `name_1`, `name_2`...: the first not yet a global variable of the scope
    (TF does this so two debiased averages of one variable do not collide)."""
    scope = variable_scope.get_variable_scope()
    if scope.reuse:
        return name
    taken = {v.op.name for v in scope.global_variables()}
    full = scope.name + "/" + name
    if full not in taken:
        return name
    i = 1
    while f"{full}_{i}" in taken:
        i += 1
    return f"{name}_{i}"


def _zero_debias(unbiased: Any, value: Any, one_minus_decay: Tensor) -> Tensor:
    with (
        variable_scope.variable_scope(
            unbiased.name[: -len(":0")], values=[unbiased, value, one_minus_decay]
        ),
        colocate_with(unbiased),
    ):
        biased = variable_scope.get_variable(
            _unique_in_scope("biased"),
            initializer=init_ops.zeros_initializer(),
            shape=unbiased.get_shape(),
            dtype=unbiased.dtype,
            trainable=False,
        )
        local_step = variable_scope.get_variable(
            _unique_in_scope("local_step"),
            shape=[],
            dtype=unbiased.dtype,
            initializer=init_ops.zeros_initializer(),
            trainable=False,
        )
    # The updates are made back in the caller's name scope (TF's strategy.update runs them
    # there), the last one named after that scope itself.
    update_biased = state_ops.assign_sub(biased, (biased - value) * one_minus_decay)
    update_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - one_minus_decay, update_step)
    scope = get_default_graph().get_name_scope()
    return state_ops.assign(unbiased, update_biased / bias_factor, name=scope + "/")


class ExponentialMovingAverage:
    """Shadow copies of variables (or tensors) kept as exponential moving averages:
    shadow -= (1 - decay) * (shadow - value) each time the op apply() returns runs, with
    decay min(decay, (1 + num_updates) / (10 + num_updates)) when num_updates is given."""

    def __init__(
        self,
        decay: Any,
        num_updates: Any = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ) -> None:
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        # id(var) -> (var, shadow): keyed by identity, as TF's var.experimental_ref() is
        # (the var is kept in the value, so its id is not reused).
        self._averages: dict[int, tuple[Any, Any]] = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: Iterable[Any] | None = None) -> Operation:
        """Makes the shadow variables of var_list (default: the trainable variables) and
        returns the op that updates them all once."""
        var_list = list(trainable_variables() if var_list is None else var_list)
        debiased: set[int] = set()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_TYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if id(var) in self._averages:
                continue
            with init_scope():
                if isinstance(var, Variable):
                    internal_deprecations.called_internally(internal_deprecations.INITIALIZED_VALUE)
                    avg = slot_creator.create_slot(
                        var, var.initialized_value(), self.name, colocate_with_primary=True
                    )
                    add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(
                        var,
                        self.name,
                        colocate_with_primary=var.op.type in _VARIABLE_OP_TYPES,
                    )
                    if self._zero_debias:
                        debiased.add(id(avg))
            self._averages[id(var)] = (var, avg)
        with name_scope(self.name) as scope:
            decay = convert_to_tensor(self._decay, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[id(var)][1]
                # TF's `var/read` shares the variable's buffer, so an average applied after
                # the optimizer (under its control dependency) sees the updated value; here
                # the read would be a snapshot taken before, so the update reads the
                # variable itself when it runs.
                # A resource variable reads itself where it is used (a fresh read).
                value = (
                    var._ref()
                    if isinstance(var, Variable) and not is_resource_variable(var)
                    else var
                )
                updates.append(assign_moving_average(avg, value, decay, id(avg) in debiased))
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var: Any) -> Any:
        """The shadow variable of var, or None when var's average is not kept."""
        found = self._averages.get(id(var))
        return None if found is None else found[1]

    def average_name(self, var: Any) -> str:
        """The name of var's shadow variable: the one made, or the one apply() would make
        (what a Saver maps to var to restore the average into it)."""
        found = self._averages.get(id(var))
        if found is not None:
            return str(found[1].op.name)
        return get_default_graph().unique_name(var.op.name + "/" + self.name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables: Iterable[Any] | None = None) -> dict:
        """Saver names -> variables: the averaged variables under their shadow's name, every
        other global variable under its own."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        averaged = list(dict.fromkeys(moving_avg_variables))
        name_map: dict[str, Any] = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for v in global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map


__all__ = ["ExponentialMovingAverage", "assign_moving_average"]
