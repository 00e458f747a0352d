"""tf.keras.optimizers as TF 1.15's Keras trains with them in graph mode (OptimizerV2):
hyperparameters and `iter` are variables, slots are named `<variable>/<slot>` in the
optimizer's name scope (`training/Adam/dense/kernel/m` under Model.fit), learning-rate decay
is lr / (1 + decay * iter), and the update rules are Keras's (epsilon 1e-7; SGD momentum as
v = m * v - lr * g; Adagrad's accumulator starts at 0.1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import control_dependencies, name_scope
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.lib.keras import backend
from tfcluster.ops import array_ops, math_ops, segment_ops, state_ops, training_ops, variables


def _unwrap_autocast(variable: Any) -> Any:
    from tfcluster.lib.keras.mixed_precision.autocast_variable import AutoCastVariable

    return variable._variable if isinstance(variable, AutoCastVariable) else variable


class Optimizer:
    """The OptimizerV2 base: subclasses list their hyperparameters and slots and give the
    per-variable update."""

    _HYPERS: tuple[str, ...] = ()
    # Constructor flags TF's get_config lists (amsgrad, nesterov, centered).
    _CONFIG_FLAGS: tuple[tuple[str, Any], ...] = ()
    _SLOTS: tuple[str, ...] = ()

    def __init__(self, name: str, **kwargs: Any) -> None:
        allowed = {"clipnorm", "clipvalue", "lr", "decay"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}")
        self._name = name
        self._hyper: dict[str, Any] = {}
        self._hyper_vars: dict[str, Any] = {}
        self._iterations: Any = None
        self._slots: dict[str, dict[str, Any]] = {}
        self._initial_decay = kwargs.pop("decay", 0.0)
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.clipvalue = kwargs.pop("clipvalue", None)
        self._set_hyper("decay", self._initial_decay)

    # ---- hyperparameters -------------------------------------------------------------------
    def _set_hyper(self, name: str, value: Any) -> None:
        if name in self._hyper_vars:
            backend.set_value(self._hyper_vars[name], value)
        self._hyper[name] = value

    def _get_hyper(self, name: str, dtype: Any = None) -> Any:
        value = self._hyper_vars.get(name, self._hyper[name])
        if isinstance(value, variables.Variable):
            value = value.value()
        return math_ops.cast(value, dtype) if dtype is not None else value

    def __getattr__(self, name: str) -> Any:
        hyper = self.__dict__.get("_hyper", {})
        if name == "lr":
            name = "learning_rate"
        if name in hyper:
            return self.__dict__["_hyper_vars"].get(name, hyper[name])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "lr":
            name = "learning_rate"
        if "_hyper" in self.__dict__ and name in self._hyper:
            self._set_hyper(name, value)
        else:
            super().__setattr__(name, value)

    @property
    def iterations(self) -> Any:
        if self._iterations is None:
            # TF 1.15's OptimizerV2.add_weight: Keras weights, resource variables.
            self._iterations = variables.Variable(
                np.int64(0), name="iter", dtype=dtypes.int64, trainable=False, use_resource=True
            )
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

    def _create_hypers(self) -> None:
        if self._hyper_vars:
            return
        for name, value in sorted(self._hyper.items()):
            if isinstance(value, variables.Variable) or callable(value):
                self._hyper_vars[name] = value
                continue
            self._hyper_vars[name] = variables.Variable(
                np.float32(value),
                name=name,
                dtype=dtypes.float32,
                trainable=False,
                use_resource=True,
            )

    # ---- slots -----------------------------------------------------------------------------
    def _slot_initial(self, slot: str, var: Any) -> Any:
        return np.zeros(var.shape.as_list(), dtype=var.dtype.base_dtype.as_numpy_dtype)

    def _hyper_config(self, name: str) -> Any:
        """TF's _serialize_hyperparameter: a schedule's config, a variable's value (float32)."""
        value = self._hyper_vars.get(name, self._hyper[name])
        if hasattr(value, "get_config") and not isinstance(value, variables.Variable):
            from tfcluster.lib.keras.optimizer_schedules import serialize as serialize_schedule

            return serialize_schedule(value)
        if isinstance(value, variables.Variable):
            return backend.get_value(value)
        return value

    def add_slot(self, var: Any, slot_name: str, initializer: Any = "zeros") -> Any:
        """var's slot `slot_name` (made on first call): its initial value from a Keras
        initializer (a name or callable, over var's shape and dtype) or the value given."""
        slot = slot_name
        key = var.op.name
        per_var = self._slots.setdefault(key, {})
        if slot not in per_var:
            if slot not in self._added_slot_names:
                self._added_slot_names.append(slot)
            initial_value = initializer
            if isinstance(initializer, str) or callable(initializer):
                from tfcluster.lib.keras import initializers

                init = initializers.get(initializer)

                def initial_value() -> Any:
                    return init(var.shape, dtype=var.dtype.base_dtype)

            per_var[slot] = variables.Variable(
                initial_value,
                name=f"{key}/{slot}",
                dtype=var.dtype.base_dtype,
                trainable=False,
                # TF 1.15's add_slot makes a tf.Variable (V2): a resource variable.
                use_resource=True,
            )
        return per_var[slot]

    def get_slot(self, var: Any, slot_name: str) -> Any:
        return self._slots[var.op.name][slot_name]

    @property
    def _added_slot_names(self) -> list[str]:
        """Every slot name add_slot made, in order: TF 1.15's get_slot_names lists these
        (an optimizer's own slots appear once its weights are made)."""
        return self.__dict__.setdefault("_slot_names_added", [])

    def get_slot_names(self) -> list[str]:
        return list(self._added_slot_names)

    def _slot_names(self) -> tuple[str, ...]:
        return self._SLOTS

    # ---- building the step -------------------------------------------------------------------
    def get_gradients(self, loss: Any, params: list[Any]) -> list[Any]:
        # TF 1.15's OptimizerV2 differentiates under '<name>/gradients' (its ops are named
        # '<name>/gradients/gradients/...').
        with name_scope(self._name + "/gradients"):
            return self._clipped_gradients(loss, params)

    def _clipped_gradients(self, loss: Any, params: list[Any]) -> list[Any]:
        grads = gradients(loss, params, colocate_gradients_with_ops=True)
        if any(g is None for g in grads):
            missing = [p.name for p, g in zip(params, grads) if g is None]
            raise ValueError(
                f"Variables {missing} have no gradient. Please make sure that all of your ops "
                "have a gradient defined (i.e. are differentiable)."
            )
        if self.clipnorm is not None:
            from tfcluster.ops import clip_ops

            grads = [clip_ops.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            from tfcluster.ops import clip_ops

            grads = [clip_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def get_updates(self, loss: Any, params: list[Any]) -> list[Any]:
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params)))]

    def minimize(
        self, loss: Any, var_list: list[Any], grad_loss: Any = None, name: str | None = None
    ) -> Any:
        if callable(loss):
            loss = loss()
        if callable(var_list):
            var_list = var_list()
        return self.apply_gradients(list(zip(self.get_gradients(loss, var_list), var_list)))

    def apply_gradients(
        self, grads_and_vars: list[tuple[Any, Any]], name: str | None = None
    ) -> Any:
        # TF 1.15 makes the weights and the step under the optimizer's name.
        with name_scope(self._name):
            return self._apply(grads_and_vars)

    def _apply(self, grads_and_vars: list[tuple[Any, Any]]) -> Any:
        # A mixed-precision layer's AutoCastVariable is updated as the float32 variable it is.
        pairs = [(g, _unwrap_autocast(v)) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        iterations = self.iterations
        self._create_weights([v for _, v in pairs])
        self._prepare([v for _, v in pairs])
        updates = []
        for g, v in pairs:
            if isinstance(g, IndexedSlices):
                g = segment_ops.unsorted_segment_sum(g.values, g.indices, array_ops.shape(v)[0])
            updates.append(self._apply_dense(g, v))
        with control_dependencies(updates):
            return state_ops.assign_add(iterations, np.int64(1))

    def _create_weights(self, var_list: list[Any]) -> None:
        """The step counter, hyperparameter variables and every variable's slots."""
        var_list = [_unwrap_autocast(v) for v in var_list]
        _ = self.iterations
        self._create_hypers()
        for slot in self._slot_names():
            for v in var_list:
                self.add_slot(v, slot, initializer=self._slot_initial(slot, v))

    def _prepare(self, var_list: list[Any]) -> None:
        """Once per step, before the per-variable updates (Nadam keeps a running product)."""

    def _decayed_lr(self, dtype: Any) -> Any:
        from tfcluster.lib.keras.optimizer_schedules import LearningRateSchedule

        schedule = self._hyper.get("learning_rate")
        if isinstance(schedule, LearningRateSchedule):
            lr = math_ops.cast(schedule(self.iterations), dtype)
        else:
            lr = self._get_hyper("learning_rate", dtype)
        if self._initial_decay > 0.0:
            step = math_ops.cast(self.iterations, dtype)
            lr = lr / (1.0 + self._get_hyper("decay", dtype) * step)
        return lr

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        raise NotImplementedError

    # ---- state ---------------------------------------------------------------------------------
    def variables(self) -> list[Any]:
        """The iteration count, then the slots grouped by slot name (all `m`, then all `v`) in
        the order of the variables they shadow, as TF 1.15's OptimizerV2.weights lists them
        (hyperparameter variables are not among them)."""
        out = [self._iterations] if self._iterations is not None else []
        names = list(self._slot_names())
        for per_var in self._slots.values():
            names += [n for n in per_var if n not in names]
        for name in names:
            out += [per_var[name] for per_var in self._slots.values() if name in per_var]
        return out

    weights = property(variables)

    def get_weights(self) -> list[Any]:
        return backend.batch_get_value(self.variables())

    def set_weights(self, weights: list[Any]) -> None:
        backend.batch_set_value(list(zip(self.variables(), weights)))

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self._name}
        for k in self._hyper:
            config[k] = self._hyper_config(k)
        if hasattr(self, "epsilon"):
            config["epsilon"] = self.epsilon
        for flag, default in self._CONFIG_FLAGS:
            config[flag] = getattr(self, flag, default)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            from tfcluster.lib.keras.optimizer_schedules import deserialize as load_schedule

            config["learning_rate"] = load_schedule(config["learning_rate"], custom_objects)
        return cls(**config)


class SGD(Optimizer):
    _CONFIG_FLAGS = (("nesterov", False),)

    def __init__(
        self, learning_rate: float = 0.01, momentum: float = 0.0, nesterov: bool = False,
        name: str = "SGD", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._momentum = momentum > 0
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _slot_names(self) -> tuple[str, ...]:
        return ("momentum",) if self._momentum else ()

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        if not self._momentum:
            return training_ops.as_operation(training_ops.apply_gradient_descent(var, lr, grad))
        momentum = self._get_hyper("momentum", dtype)
        accum = self.get_slot(var, "momentum")
        new_accum = state_ops.assign(accum, momentum * accum - lr * grad)
        if self.nesterov:
            return state_ops.assign_add(var, momentum * new_accum - lr * grad).op
        return state_ops.assign_add(var, new_accum).op


class Adam(Optimizer):
    _CONFIG_FLAGS = (("amsgrad", False),)

    def __init__(
        self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
        epsilon: float = 1e-7, amsgrad: bool = False, name: str = "Adam", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        if amsgrad:
            raise backend.unimplemented("tf.keras.optimizers.Adam(amsgrad=True)")
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()

    _SLOTS = ("m", "v")

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        beta_1 = self._get_hyper("beta_1", dtype)
        beta_2 = self._get_hyper("beta_2", dtype)
        step = math_ops.cast(self.iterations + 1, dtype)
        return training_ops.as_operation(
            training_ops.apply_adam(
                var,
                self.get_slot(var, "m"),
                self.get_slot(var, "v"),
                math_ops.pow(beta_1, step),
                math_ops.pow(beta_2, step),
                lr,
                beta_1,
                beta_2,
                math_ops.cast(self.epsilon, dtype),
                grad,
            )
        )


class RMSprop(Optimizer):
    _CONFIG_FLAGS = (("centered", False),)

    def __init__(
        self, learning_rate: float = 0.001, rho: float = 0.9, momentum: float = 0.0,
        epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        if centered:
            raise backend.unimplemented("tf.keras.optimizers.RMSprop(centered=True)")
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("rho", rho)
        self._momentum = momentum > 0
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or backend.epsilon()

    def _slot_names(self) -> tuple[str, ...]:
        return ("rms", "momentum") if self._momentum else ("rms",)

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        rho = self._get_hyper("rho", dtype)
        epsilon = math_ops.cast(self.epsilon, dtype)
        rms = self.get_slot(var, "rms")
        if self._momentum:
            return training_ops.as_operation(training_ops.apply_rms_prop(
                var, rms, self.get_slot(var, "momentum"), lr, rho,
                self._get_hyper("momentum", dtype), epsilon, grad,
            ))  # fmt: skip
        rms_t = state_ops.assign(rms, rho * rms + (1.0 - rho) * math_ops.square(grad))
        return state_ops.assign(var, var - lr * grad / (math_ops.sqrt(rms_t) + epsilon)).op


class Adagrad(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7, name: str = "Adagrad", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or backend.epsilon()

    _SLOTS = ("accumulator",)

    def _slot_initial(self, slot: str, var: Any) -> Any:
        return np.full(
            var.shape.as_list(),
            self._initial_accumulator_value,
            dtype=var.dtype.base_dtype.as_numpy_dtype,
        )

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        acc = self.get_slot(var, "accumulator")
        acc_t = state_ops.assign_add(acc, math_ops.square(grad))
        step = lr * grad / (math_ops.sqrt(acc_t) + math_ops.cast(self.epsilon, dtype))
        return state_ops.assign_sub(var, step).op


class TFOptimizer(Optimizer):
    """A tf.train optimizer given to compile(): it makes its own slots and step."""

    def __init__(self, optimizer: Any) -> None:
        super().__init__("TFOptimizer")
        self.optimizer = optimizer
        # TF 1.15 makes its step counter when compile wraps the optimizer, at the top.
        with name_scope("TFOptimizer"):
            self.iterations = backend.variable(0, dtype="int64", name="iterations")

    def apply_gradients(
        self, grads_and_vars: list[tuple[Any, Any]], name: str | None = None
    ) -> Any:
        return self.optimizer.apply_gradients(grads_and_vars, global_step=self.iterations)

    def get_gradients(self, loss: Any, params: list[Any]) -> list[Any]:
        return [g for g, _ in self.optimizer.compute_gradients(loss, params)]


class Adadelta(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
        name: str = "Adadelta", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or backend.epsilon()

    _SLOTS = ("accum_grad", "accum_var")

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        return training_ops.as_operation(training_ops.apply_adadelta(
            var, self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var"),
            self._decayed_lr(dtype), self._get_hyper("rho", dtype),
            math_ops.cast(self.epsilon, dtype), grad,
        ))  # fmt: skip


class Adamax(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
        epsilon: float = 1e-7, name: str = "Adamax", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()

    _SLOTS = ("m", "v")

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        # TF's ApplyAdaMax: m += (1-b1)(g-m); v = max(b2 v, |g|); var -= lr/(1-b1^t) m/(v+eps).
        dtype = var.dtype.base_dtype
        lr = self._decayed_lr(dtype)
        beta_1 = self._get_hyper("beta_1", dtype)
        beta_2 = self._get_hyper("beta_2", dtype)
        beta_1_power = math_ops.pow(beta_1, math_ops.cast(self.iterations + 1, dtype))
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign_add(m, (grad - m) * (1 - beta_1))
        v_t = state_ops.assign(v, math_ops.maximum(beta_2 * v, math_ops.abs(grad)))
        step = lr / (1 - beta_1_power) * (m_t / (v_t + math_ops.cast(self.epsilon, dtype)))
        return state_ops.assign_sub(var, step).op


class Nadam(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
        epsilon: float = 1e-7, name: str = "Nadam", **kwargs: Any,
    ) -> None:  # fmt: skip
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.pop("lr", learning_rate)
        from tfcluster.lib.keras.optimizer_schedules import LearningRateSchedule

        if isinstance(learning_rate, LearningRateSchedule):
            raise ValueError(
                "The Nadam optimizer does not support tf.keras.optimizers.LearningRateSchedules "
                "as the learning rate."
            )
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self._m_cache: Any = None
        self._coefficients: dict[Any, dict[str, Any]] = {}

    _SLOTS = ("m", "v")

    def variables(self) -> list[Any]:
        out = super().variables()
        if self._m_cache is not None:
            out.insert(1 if self._iterations is not None else 0, self._m_cache)
        return out

    weights = property(variables)

    def _prepare(self, var_list: list[Any]) -> None:
        dtype = var_list[0].dtype.base_dtype
        if self._m_cache is None:
            self._m_cache = variables.Variable(
                np.ones((), dtype=dtype.as_numpy_dtype), name="momentum_cache", dtype=dtype,
                trainable=False,
            )  # fmt: skip
        m_cache_read = array_ops.identity(self._m_cache)
        self._coefficients = {}
        for dt in {v.dtype.base_dtype for v in var_list}:
            lr = array_ops.identity(self._get_hyper("learning_rate", dt))
            beta_1 = array_ops.identity(self._get_hyper("beta_1", dt))
            beta_2 = array_ops.identity(self._get_hyper("beta_2", dt))
            local_step = math_ops.cast(self.iterations + 1, dt)
            next_step = math_ops.cast(self.iterations + 2, dt)
            decay_base = math_ops.cast(0.96, dt)
            m_t = beta_1 * (1.0 - 0.5 * math_ops.pow(decay_base, self._initial_decay * local_step))
            m_t_1 = beta_1 * (1.0 - 0.5 * math_ops.pow(decay_base, self._initial_decay * next_step))
            m_schedule_new = math_ops.cast(m_cache_read, dt) * m_t
            if dt == self._m_cache.dtype.base_dtype:
                m_schedule_new = array_ops.identity(state_ops.assign(self._m_cache, m_schedule_new))
            m_schedule_next = m_schedule_new * m_t_1
            self._coefficients[dt] = {
                "lr_t": lr, "epsilon": math_ops.cast(self.epsilon, dt), "beta_1_t": beta_1,
                "beta_2_t": beta_2, "m_t": m_t, "m_t_1": m_t_1,
                "one_minus_beta_1_t": 1 - beta_1, "one_minus_beta_2_t": 1 - beta_2,
                "one_minus_m_t": 1.0 - m_t, "one_minus_m_schedule_new": 1.0 - m_schedule_new,
                "one_minus_m_schedule_next": 1.0 - m_schedule_next,
                "v_t_prime_denominator": 1.0 - math_ops.pow(beta_2, local_step),
            }  # fmt: skip

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        c = self._coefficients[var.dtype.base_dtype]
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = state_ops.assign(m, c["beta_1_t"] * m + c["one_minus_beta_1_t"] * grad)
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t = state_ops.assign(
            v, c["beta_2_t"] * v + c["one_minus_beta_2_t"] * math_ops.square(grad)
        )
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * m_t_prime
        var_t = var - c["lr_t"] * m_t_bar / (math_ops.sqrt(v_t_prime) + c["epsilon"])
        return state_ops.assign(var, var_t).op


class Ftrl(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0, name: str = "Ftrl",
        l2_shrinkage_regularization_strength: float = 0.0, **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"initial_accumulator_value {initial_accumulator_value:f} needs to be positive "
                "or zero"
            )
        if learning_rate_power > 0.0:
            raise ValueError(
                f"learning_rate_power {learning_rate_power:f} needs to be negative or zero"
            )
        for value, what in (
            (l1_regularization_strength, "l1_regularization_strength"),
            (l2_regularization_strength, "l2_regularization_strength"),
        ):
            if value < 0.0:
                raise ValueError(f"{what} {value:f} needs to be positive or zero")
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError(
                f"l2_shrinkage_regularization_strength {l2_shrinkage_regularization_strength:f} "
                "needs to be positive or zero"
            )
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    _SLOTS = ("accumulator", "linear")

    def _slot_initial(self, slot: str, var: Any) -> Any:
        dtype = var.dtype.base_dtype.as_numpy_dtype
        if slot == "accumulator":
            return np.full(var.shape.as_list(), self._initial_accumulator_value, dtype=dtype)
        return np.zeros(var.shape.as_list(), dtype=dtype)

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        dtype = var.dtype.base_dtype
        args = (
            var, self.get_slot(var, "accumulator"), self.get_slot(var, "linear"), grad,
            self._decayed_lr(dtype), self._get_hyper("l1_regularization_strength", dtype),
            self._get_hyper("l2_regularization_strength", dtype),
        )  # fmt: skip
        power = self._get_hyper("learning_rate_power", dtype)
        if self._l2_shrinkage_regularization_strength <= 0.0:
            return training_ops.as_operation(training_ops.apply_ftrl(*args, power))
        shrinkage = math_ops.cast(self._l2_shrinkage_regularization_strength, dtype)
        return training_ops.as_operation(training_ops.apply_ftrl_v2(*args, shrinkage, power))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["initial_accumulator_value"] = self._initial_accumulator_value
        config["l2_shrinkage_regularization_strength"] = self._l2_shrinkage_regularization_strength
        return config


_BY_NAME: dict[str, type] = {
    "sgd": SGD,
    "adam": Adam,
    "rmsprop": RMSprop,
    "adagrad": Adagrad,
    "adadelta": Adadelta,
    "adamax": Adamax,
    "nadam": Nadam,
    "ftrl": Ftrl,
}


def serialize(optimizer: Any) -> dict[str, Any]:
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    name = config["class_name"]
    cls: Any = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError(f"Unknown optimizer: {name}")
    return cls.from_config(config.get("config", {}))


def get(identifier: Any) -> Any:
    """An optimizer from a name ('adam'), a config, a Keras optimizer, or a tf.train optimizer
    (wrapped, as 1.15 wraps it in TFOptimizer)."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}})
    from tfcluster.training.optimizer import Optimizer as TFTrainOptimizer

    if isinstance(identifier, TFTrainOptimizer):
        return TFOptimizer(identifier)
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
