"""TF 1.15's Keras OptimizerV2 base as it builds a graph: hyperparameters and `iter` are
resource variables (`add_weight`), slots are `<variable>/<slot>` variables, and a step is
built as TF builds it, so the op count after it (hence every later op seed) is TF's:

    <name>/                  the weights (iter, the hyperparameters sorted, then the slots)
    <name>/Identity ...      `_prepare_local`: the coefficients, once per (device, dtype)
    <name>/<name>/update_<variable>/Resource...   one update per variable
    <name>/<name>/AssignAddVariableOp             iter += 1 after them

Subclasses give `_create_slots`, `_prepare_local` and `_resource_apply_dense` (and
`_resource_apply_sparse` for IndexedSlices gradients, after duplicate rows are summed)."""

from __future__ import annotations

import functools
import logging
import numbers
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Tensor,
    control_dependencies,
    convert_to_tensor,
    device,
    init_scope,
    name_scope,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.lib.keras import backend
from tfcluster.ops import array_ops, math_ops, segment_ops, variables
from tfcluster.ops.nest import flatten

_LOG = logging.getLogger("tensorflow")


def _unwrap_autocast(variable: Any) -> Any:
    from tfcluster.lib.keras.mixed_precision.autocast_variable import AutoCastVariable

    return variable._variable if isinstance(variable, AutoCastVariable) else variable


def _var_key(var: Any) -> str:
    return str(_unwrap_autocast(var).op.name)


def _is_schedule(value: Any) -> bool:
    from tfcluster.lib.keras.optimizer_schedules import LearningRateSchedule

    return isinstance(value, LearningRateSchedule)


def _filter_grads(grads_and_vars: Any) -> list[tuple[Any, Any]]:
    """The pairs with a gradient (TF logs the variables without one)."""
    pairs = list(grads_and_vars)
    if not pairs:
        return pairs
    kept = [(g, v) for g, v in pairs if g is not None]
    if not kept:
        raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in pairs]}.")
    missing = [v.name for g, v in pairs if g is None]
    if missing:
        _LOG.warning("Gradients do not exist for variables %s when minimizing the loss.", missing)
    return kept


def deduplicate_indexed_slices(values: Any, indices: Any) -> tuple[Any, Any]:
    """TF's _deduplicate_indexed_slices: the rows of repeated indices summed (Unique, then
    UnsortedSegmentSum over the unique count)."""
    unique_indices, positions = array_ops.unique(indices)
    summed = segment_ops.unsorted_segment_sum(values, positions, array_ops.shape(unique_indices)[0])
    return summed, unique_indices


class Optimizer:
    """tf.keras.optimizers.Optimizer (OptimizerV2)."""

    # Constructor flags get_config lists beside the hyperparameters (amsgrad, nesterov, ...).
    _CONFIG_FLAGS: tuple[tuple[str, Any], ...] = ()

    def __init__(self, name: str, **kwargs: Any) -> None:
        allowed = {"clipnorm", "clipvalue", "lr", "decay"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}")
            if isinstance(kwargs[k], numbers.Number) and kwargs[k] < 0:
                raise ValueError(f"Expected {k} >= 0, received: {kwargs[k]}")
        self._use_locking = True
        self._name = name
        # name -> its value, or the variable made for it (TF keeps both in one dict).
        self._hyper: dict[str, Any] = {}
        self._slots: dict[str, dict[str, Any]] = {}
        self._slot_name_list: list[str] = []
        self._weights: list[Any] = []
        self._iterations: Any = None
        decay = kwargs.pop("decay", 0.0)
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0: {decay}")
        self._initial_decay = decay
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.clipvalue = kwargs.pop("clipvalue", None)
        self._hypers_created = False

    # ---- hyperparameters -------------------------------------------------------------------
    def _set_hyper(self, name: str, value: Any) -> None:
        """A new value, or the variable already made for it set to the value."""
        if name not in self._hyper:
            self._hyper[name] = value
            return
        prev = self._hyper[name]
        replace = (
            callable(prev)
            or isinstance(prev, (Tensor, numbers.Number, np.generic))
            or _is_schedule(prev)
            or _is_schedule(value)
        )
        if replace:
            self._hyper[name] = value
        else:
            backend.set_value(prev, value)

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        """The hyperparameter (made a variable first): the variable itself where it has the
        dtype asked for (TF's cast returns it), a Cast of it otherwise."""
        if not self._hypers_created:
            self._create_hypers()
        value = self._hyper[name]
        if _is_schedule(value):
            return value
        if callable(value):
            value = value()
        if dtype is not None:
            return math_ops.cast(value, dtype)
        return value

    def __getattr__(self, name: str) -> Any:
        hyper = self.__dict__.get("_hyper", {})
        # `lr` reads learning_rate, but a miss names the attribute asked for (as TF's).
        key = "learning_rate" if name == "lr" else name
        if key in hyper:
            return self._get_hyper(key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        if "_hyper" in self.__dict__ and name in self._hyper:
            self._set_hyper(name, value)
        else:
            super().__setattr__(name, value)

    def _create_hypers(self) -> None:
        """Each hyperparameter given as a number becomes a variable, in name order."""
        if self._hypers_created:
            return
        for name, value in sorted(self._hyper.items()):
            if isinstance(value, (Tensor, variables.Variable)) or callable(value):
                continue
            self._hyper[name] = self.add_weight(name, shape=[], trainable=False, initializer=value)
            self._restore_created(f"optimizer/{name}", self._hyper[name])
        self._hypers_created = True

    # A model's load_weights sets this (TF 1.15's deferred restoration): a weight made after
    # it is restored from the checkpoint at once (restore_weight(key, variable) for the
    # step counter and hyperparameters, restore_slot(var, slot_name, slot) for slots).
    _deferred_restore: Any = None

    def _restore_created(self, key: str, variable: Any) -> None:
        if self._deferred_restore is not None:
            self._deferred_restore.restore_weight(key, variable)

    def _serialize_hyperparameter(self, name: str) -> Any:
        value = self._hyper[name]
        if _is_schedule(value):
            from tfcluster.lib.keras.optimizer_schedules import serialize as serialize_schedule

            return serialize_schedule(value)
        if isinstance(value, (variables.Variable, Tensor)):
            return backend.get_value(value)
        if callable(value):
            return value()
        return value

    # ---- weights -----------------------------------------------------------------------------
    def add_weight(
        self,
        name: str,
        shape: Any,
        dtype: Any = None,
        initializer: Any = "zeros",
        trainable: bool | None = None,
    ) -> Any:
        """A resource variable of the optimizer's (Keras's make_variable): a Keras initializer
        (by name or callable) over the shape, or the value given (`Initializer/initial_value`)."""
        dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        if isinstance(initializer, str) or callable(initializer):
            from tfcluster.lib.keras import initializers

            init = initializers.get(initializer)
            initial_value: Any = functools.partial(init, shape, dtype=dtype)
            variable_dtype: Any = dtype
        else:
            initial_value, variable_dtype = initializer, None
        variable = variables.Variable(
            initial_value,
            name=name,
            dtype=variable_dtype,
            trainable=True if trainable is None else trainable,
            use_resource=True,
        )
        backend.track_variable(variable)
        return variable

    @property
    def iterations(self) -> Any:
        if self._iterations is None:
            self._iterations = self.add_weight(
                "iter", shape=[], dtype=dtypes.int64, trainable=False
            )
            self._weights.append(self._iterations)
            self._restore_created("optimizer/iter", self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable: Any) -> None:
        """Count steps in a variable of the caller's (an Estimator's global step)."""
        if self._iterations is not None:
            raise RuntimeError(
                "Cannot set `iterations` to a new Variable after the Optimizer weights have "
                "been created"
            )
        self._iterations = variable
        self._weights.append(variable)

    def add_slot(self, var: Any, slot_name: str, initializer: Any = "zeros") -> Any:
        """var's slot `slot_name` (made on first call): a Keras initializer (a name or
        callable, over var's shape and dtype) or the value given."""
        var = _unwrap_autocast(var)
        if slot_name not in self._slot_name_list:
            self._slot_name_list.append(slot_name)
        key = _var_key(var)
        slot_dict = self._slots.setdefault(key, {})
        weight = slot_dict.get(slot_name)
        if weight is None:
            dtype = var.dtype.base_dtype
            initial_value: Any = initializer
            if isinstance(initializer, str) or callable(initializer):
                from tfcluster.lib.keras import initializers

                initial_value = functools.partial(
                    initializers.get(initializer), shape=var.shape, dtype=dtype
                )
            if var.dtype != var.dtype.base_dtype:
                _refuse_reference_variable(var, f"{key}/{slot_name}", initial_value)
            # TF 1.15's add_slot makes a tf.Variable (V2): a resource variable.
            weight = variables.Variable(
                initial_value,
                name=f"{key}/{slot_name}",
                dtype=dtype,
                trainable=False,
                use_resource=True,
            )
            backend.track_variable(weight)
            slot_dict[slot_name] = weight
            self._weights.append(weight)
            if self._deferred_restore is not None:
                self._deferred_restore.restore_slot(var, slot_name, weight)
        return weight

    def get_slot(self, var: Any, slot_name: str) -> Any:
        return self._slots[_var_key(var)][slot_name]

    def get_slot_names(self) -> list[str]:
        """Every slot name add_slot made, in order (none before the weights are made)."""
        return self._slot_name_list

    def _create_slots(self, var_list: list[Any]) -> None:
        """The slots of each variable (none for plain SGD)."""

    def _create_weights(self, var_list: list[Any]) -> None:
        """The step counter, hyperparameter variables and every variable's slots."""
        var_list = [_unwrap_autocast(v) for v in var_list]
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def variables(self) -> list[Any]:
        """The optimizer's weights in the order made: iter, then the slots (grouped as each
        optimizer's _create_slots makes them); hyperparameter variables are not among them."""
        return self._weights

    weights = property(variables)

    def get_weights(self) -> list[Any]:
        return backend.batch_get_value(self._weights)

    def set_weights(self, weights: list[Any]) -> None:
        params = self._weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self._name} with a weight list "
                f"of length {len(weights)}, but the optimizer was expecting {len(params)} "
                f"weights. Provided weights: {str(weights)[:50]}..."
            )
        backend.batch_set_value(list(zip(params, weights)))

    # ---- gradients ---------------------------------------------------------------------------
    def get_gradients(self, loss: Any, params: list[Any]) -> list[Any]:
        # TF 1.15's OptimizerV2 differentiates under '<name>/gradients' (its ops are named
        # '<name>/gradients/gradients/...').
        params = flatten(params)  # one variable too, as TF's nest.flatten takes it
        with name_scope(self._name + "/gradients"):
            grads = gradients(loss, params)
            for grad, param in zip(grads, params):
                if grad is None:
                    raise ValueError(
                        f"Variable {param} has `None` for gradient. Please make sure that all "
                        "of your ops have a gradient defined (i.e. are differentiable). Common "
                        "ops without gradient: K.argmax, K.round, K.eval."
                    )
            return self._clip(grads)

    def _clip(self, grads: list[Any]) -> list[Any]:
        from tfcluster.ops import clip_ops

        if self.clipnorm is not None:
            grads = [clip_ops.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            grads = [clip_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def get_updates(self, loss: Any, params: list[Any]) -> list[Any]:
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params)))]

    def minimize(
        self, loss: Any, var_list: Any, grad_loss: Any = None, name: str | None = None
    ) -> Any:
        return self.apply_gradients(self._compute_gradients(loss, var_list, grad_loss), name=name)

    def _compute_gradients(self, loss: Any, var_list: Any, grad_loss: Any = None) -> Any:
        """As TF 1.15's, graph mode too: the loss is called under a GradientTape watching
        var_list, so a tensor is refused (not callable) and only the ops the call makes
        carry gradients (a loss made before it has none)."""
        from tfcluster.lib.tape.gradient_tape import GradientTape
        from tfcluster.ops import nest

        with GradientTape() as tape:
            if not callable(var_list):
                tape.watch(var_list)
            loss_value = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = nest.flatten(var_list)
        with name_scope(self._name + "/gradients"):
            grads = tape.gradient(loss_value, var_list, grad_loss)
            grads = [g if g is None else c for g, c in zip(grads, self._clip_present(grads))]
        return list(zip(grads, var_list))

    def _clip_present(self, grads: list[Any]) -> list[Any]:
        present = [g for g in grads if g is not None]
        clipped = iter(self._clip(present))
        return [None if g is None else next(clipped) for g in grads]

    # ---- building the step -------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Any, name: str | None = None) -> Any:
        # As TF 1.15: no pairs at all (a model whose weights are all frozen) is a step that
        # only counts itself; pairs without any gradient are refused by _filter_grads.
        pairs = [(g, _unwrap_autocast(v)) for g, v in _filter_grads(grads_and_vars)]
        var_list = [v for _, v in pairs]
        with name_scope(self._name):
            with init_scope():
                self._create_weights(var_list)
            apply_state = self._prepare(var_list)
            return self._distributed_apply(pairs, name, apply_state)

    def _prepare(self, var_list: list[Any]) -> dict[Any, dict[str, Any]]:
        """The coefficients each (device, dtype) of the variables shares (`_prepare_local`)."""
        keys: dict[tuple[str, Any], None] = {}
        for var in var_list:
            keys[(var.device, var.dtype.base_dtype)] = None
        apply_state: dict[Any, dict[str, Any]] = {}
        for var_device, var_dtype in keys:
            apply_state[(var_device, var_dtype)] = {}
            with device(var_device):
                self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        if "learning_rate" in self._hyper:
            lr_t = array_ops.identity(self._decayed_lr(var_dtype))
            apply_state[(var_device, var_dtype)]["lr_t"] = lr_t

    def _fallback_apply_state(self, var_device: str, var_dtype: Any) -> dict[str, Any]:
        apply_state: dict[Any, dict[str, Any]] = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _coefficients(self, var: Any, apply_state: Any) -> dict[str, Any]:
        key = (var.device, var.dtype.base_dtype)
        return (apply_state or {}).get(key) or self._fallback_apply_state(*key)

    def _decayed_lr(self, var_dtype: Any) -> Any:
        lr_t = self._get_hyper("learning_rate", var_dtype)
        if _is_schedule(lr_t):
            local_step = math_ops.cast(self.iterations, var_dtype)
            lr_t = math_ops.cast(lr_t(local_step), var_dtype)
        if self._initial_decay > 0.0:
            local_step = math_ops.cast(self.iterations, var_dtype)
            decay_t = self._get_hyper("decay", var_dtype)
            lr_t = lr_t / (1.0 + decay_t * local_step)
        return lr_t

    def _distributed_apply(
        self, grads_and_vars: list[tuple[Any, Any]], name: str | None, apply_state: Any
    ) -> Any:
        update_ops = []
        with name_scope(name or self._name):
            for grad, var in grads_and_vars:
                with name_scope("update_" + var.op.name):
                    update_ops.append(self._update_var(var, grad, apply_state))
            with control_dependencies(update_ops):
                return self._iterations.assign_add(1).op

    def _update_var(self, var: Any, grad: Any, apply_state: Any) -> Any:
        if isinstance(grad, IndexedSlices):
            if var.constraint is not None:
                raise RuntimeError("Cannot use a constraint function on a sparse variable.")
            return self._resource_apply_sparse_duplicate_indices(
                grad.values, var, grad.indices, apply_state
            )
        update_op = self._resource_apply_dense(grad, var, apply_state)
        if var.constraint is not None:
            with control_dependencies([update_op]):
                return var.assign(var.constraint(var))
        return update_op

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any) -> Any:
        raise NotImplementedError

    def _resource_apply_sparse_duplicate_indices(
        self, grad: Any, var: Any, indices: Any, apply_state: Any
    ) -> Any:
        summed_grad, unique_indices = deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed_grad, var, unique_indices, apply_state)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any, apply_state: Any) -> Any:
        raise NotImplementedError

    def _resource_scatter_add(self, x: Any, i: Any, v: Any) -> Any:
        with control_dependencies([x.scatter_op("Add", i, v)]):
            return x.value()

    def _resource_scatter_update(self, x: Any, i: Any, v: Any) -> Any:
        with control_dependencies([x.scatter_op("Update", i, v)]):
            return x.value()

    # ---- config ------------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if not self._builtin_optimizer():
            # TF 1.15's base gives only these: its optimizers add their own settings, a
            # program's direct subclass adds what its get_config adds.
            return config
        for k in self._hyper:
            config[k] = self._serialize_hyperparameter(k)
        if hasattr(self, "epsilon"):
            config["epsilon"] = self.epsilon
        for flag, default in self._CONFIG_FLAGS:
            config[flag] = getattr(self, flag, default)
        return config

    def _builtin_optimizer(self) -> bool:
        """Whether this optimizer is (or derives from) one of tf.keras.optimizers' own, whose
        settings this base's get_config adds for them."""
        return any(
            c is not Optimizer and c.__module__.startswith("tfcluster.")
            for c in type(self).__mro__
            if issubclass(c, Optimizer)
        )

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            from tfcluster.lib.keras.optimizer_schedules import deserialize as load_schedule

            config["learning_rate"] = load_schedule(config["learning_rate"], custom_objects)
        return cls(**config)


def _refuse_reference_variable(var: Any, slot: str, initial_value: Any) -> None:
    """TF 1.15's add_slot asks for a slot of var's own dtype: for a reference variable (a
    TF1 tf.Variable) its initial value cannot convert to `float32_ref`, a ValueError."""
    with name_scope(slot), name_scope("Initializer"):
        value = initial_value() if callable(initial_value) else convert_to_tensor(initial_value)
    raise ValueError(
        f"Tensor conversion requested dtype {var.dtype.name} for Tensor with dtype "
        f"{value.dtype.name}: {value!r}"
    )
