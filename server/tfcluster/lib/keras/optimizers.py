"""tf.keras.optimizers (TF 1.15's OptimizerV2 subclasses) as they build a graph: each one's
slots in `_create_slots`, the coefficients it shares across variables in `_prepare_local`
(built once per dtype: learning rate, bias corrections, 1 - beta, ...) and one Resource*
update per variable (ResourceApplyAdam, ResourceApplyKerasMomentum, ...), with TF's op
names and order; the base class is optimizer_v2.Optimizer."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.optimizer_v2 import Optimizer
from tfcluster.ops import array_ops, control_flow_ops, init_ops, math_ops
from tfcluster.ops.training_ops import apply_rule

__all__ = [
    "SGD", "Adam", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl", "Optimizer",
    "TFOptimizer", "serialize", "deserialize", "get",
]  # fmt: skip


def _has_momentum(momentum: Any) -> bool:
    if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
        raise ValueError("`momentum` must be between [0, 1].")
    return isinstance(momentum, Tensor) or callable(momentum) or momentum > 0


def _epsilon(value: Any, dtype: Any) -> Tensor:
    return convert_to_tensor(value, dtype)


class SGD(Optimizer):
    _CONFIG_FLAGS = (("nesterov", False),)

    def __init__(
        self, learning_rate: float = 0.01, momentum: float = 0.0, nesterov: bool = False,
        name: str = "SGD", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._momentum = _has_momentum(momentum)
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list: list[Any]) -> None:
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = array_ops.identity(
            self._get_hyper("momentum", var_dtype)
        )

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        if self._momentum:
            attrs = {"use_locking": self._use_locking, "use_nesterov": self.nesterov}
            return apply_rule(
                "ApplyKerasMomentum", [var, self.get_slot(var, "momentum")],
                [c["lr_t"], grad, c["momentum"]], attrs,
            )  # fmt: skip
        return apply_rule(
            "ApplyGradientDescent", [var], [c["lr_t"], grad], {"use_locking": self._use_locking}
        )

    def _resource_apply_sparse_duplicate_indices(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        if self._momentum:
            return super()._resource_apply_sparse_duplicate_indices(grad, var, indices, apply_state)
        c = self._coefficients(var, apply_state)
        return var.scatter_op("Add", indices, -grad * c["lr_t"])

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        attrs = {"use_locking": self._use_locking, "use_nesterov": self.nesterov}
        return apply_rule(
            "SparseApplyKerasMomentum", [var, self.get_slot(var, "momentum")],
            [c["lr_t"], grad, indices, c["momentum"]], attrs,
        )  # fmt: skip


class Adam(Optimizer):
    _CONFIG_FLAGS = (("amsgrad", False),)

    def __init__(
        self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
        epsilon: float = 1e-7, amsgrad: bool = False, name: str = "Adam", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self.amsgrad = amsgrad

    def _create_slots(self, var_list: list[Any]) -> None:
        # One loop per slot: the slots' order of TF's v1 optimizers.
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        state = apply_state[(var_device, var_dtype)]
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        beta_1_t = array_ops.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = array_ops.identity(self._get_hyper("beta_2", var_dtype))
        beta_1_power = math_ops.pow(beta_1_t, local_step)
        beta_2_power = math_ops.pow(beta_2_t, local_step)
        lr = state["lr_t"] * (math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power))
        state.update(
            lr=lr,
            epsilon=_epsilon(self.epsilon, var_dtype),
            beta_1_t=beta_1_t,
            beta_1_power=beta_1_power,
            one_minus_beta_1_t=1 - beta_1_t,
            beta_2_t=beta_2_t,
            beta_2_power=beta_2_power,
            one_minus_beta_2_t=1 - beta_2_t,
        )

    def set_weights(self, weights: list[Any]) -> None:
        # Weights of Keras's v1 Adam hold vhats even without amsgrad (3n + 1 of them).
        num_vars = int((len(self.weights) - 1) / 2)
        if len(weights) == 3 * num_vars + 1:
            weights = weights[: len(self.weights)]
        super().set_weights(weights)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        slots = [var, self.get_slot(var, "m"), self.get_slot(var, "v")]
        values = [
            c["beta_1_power"], c["beta_2_power"], c["lr_t"], c["beta_1_t"], c["beta_2_t"],
            c["epsilon"], grad,
        ]  # fmt: skip
        if not self.amsgrad:
            attrs = {"use_locking": self._use_locking, "use_nesterov": False}
            return apply_rule("ApplyAdam", slots, values, attrs)
        slots.append(self.get_slot(var, "vhat"))
        return apply_rule("ApplyAdamWithAmsgrad", slots, values, {"use_locking": True})

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad * c["one_minus_beta_1_t"]
        m_t = m.assign(m * c["beta_1_t"])
        with control_dependencies([m_t]):
            m_t = self._resource_scatter_add(m, indices, m_scaled_g_values)
        v = self.get_slot(var, "v")
        v_scaled_g_values = (grad * grad) * c["one_minus_beta_2_t"]
        v_t = v.assign(v * c["beta_2_t"])
        with control_dependencies([v_t]):
            v_t = self._resource_scatter_add(v, indices, v_scaled_g_values)
        if not self.amsgrad:
            v_sqrt = math_ops.sqrt(v_t)
            var_update = var.assign_sub(c["lr"] * m_t / (v_sqrt + c["epsilon"]))
            return control_flow_ops.group(*[var_update, m_t, v_t])
        v_hat = self.get_slot(var, "vhat")
        v_hat_t = math_ops.maximum(v_hat, v_t)
        with control_dependencies([v_hat_t]):
            v_hat_t = v_hat.assign(v_hat_t)
        v_hat_sqrt = math_ops.sqrt(v_hat_t)
        var_update = var.assign_sub(c["lr"] * m_t / (v_hat_sqrt + c["epsilon"]))
        return control_flow_ops.group(*[var_update, m_t, v_t, v_hat_t])


class RMSprop(Optimizer):
    _CONFIG_FLAGS = (("centered", False),)

    def __init__(
        self, learning_rate: float = 0.001, rho: float = 0.9, momentum: float = 0.0,
        epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = _has_momentum(momentum)
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or backend.epsilon()
        self.centered = centered

    def _create_slots(self, var_list: list[Any]) -> None:
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        state = apply_state[(var_device, var_dtype)]
        rho = array_ops.identity(self._get_hyper("rho", var_dtype))
        state.update(
            neg_lr_t=-state["lr_t"],
            epsilon=_epsilon(self.epsilon, var_dtype),
            rho=rho,
            momentum=array_ops.identity(self._get_hyper("momentum", var_dtype)),
            one_minus_rho=1.0 - rho,
        )

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        rms = self.get_slot(var, "rms")
        attrs = {"use_locking": self._use_locking}
        if self._momentum:
            mom = self.get_slot(var, "momentum")
            values = [c["lr_t"], c["rho"], c["momentum"], c["epsilon"], grad]
            if self.centered:
                mg = self.get_slot(var, "mg")
                return apply_rule("ApplyCenteredRMSProp", [var, mg, rms, mom], values, attrs)
            return apply_rule("ApplyRMSProp", [var, rms, mom], values, attrs)
        rms_t = c["rho"] * rms + c["one_minus_rho"] * math_ops.square(grad)
        rms_t = rms.assign(rms_t)
        denom_t = rms_t
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_t = c["rho"] * mg + c["one_minus_rho"] * grad
            mg_t = mg.assign(mg_t)
            denom_t = rms_t - math_ops.square(mg_t)
        var_t = var - c["lr_t"] * grad / (math_ops.sqrt(denom_t) + c["epsilon"])
        return var.assign(var_t).op

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        rms = self.get_slot(var, "rms")
        attrs = {"use_locking": self._use_locking}
        if self._momentum:
            mom = self.get_slot(var, "momentum")
            values = [c["lr_t"], c["rho"], c["momentum"], c["epsilon"], grad, indices]
            if self.centered:
                mg = self.get_slot(var, "mg")
                return apply_rule("SparseApplyCenteredRMSProp", [var, mg, rms, mom], values, attrs)
            return apply_rule("SparseApplyRMSProp", [var, rms, mom], values, attrs)
        rms_scaled_g_values = (grad * grad) * c["one_minus_rho"]
        rms_t = rms.assign(rms * c["rho"])
        with control_dependencies([rms_t]):
            rms_t = self._resource_scatter_add(rms, indices, rms_scaled_g_values)
            rms_slice = array_ops.gather(rms_t, indices)
        denom_slice = rms_slice
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_scaled_g_values = grad * c["one_minus_rho"]
            mg_t = mg.assign(mg * c["rho"])
            with control_dependencies([mg_t]):
                mg_t = self._resource_scatter_add(mg, indices, mg_scaled_g_values)
                mg_slice = array_ops.gather(mg_t, indices)
                denom_slice = rms_slice - math_ops.square(mg_slice)
        var_update = self._resource_scatter_add(
            var, indices, c["neg_lr_t"] * grad / (math_ops.sqrt(denom_slice) + c["epsilon"])
        )
        if self.centered:
            return control_flow_ops.group(*[var_update, rms_t, mg_t])
        return control_flow_ops.group(*[var_update, rms_t])

    def set_weights(self, weights: list[Any]) -> None:
        # Keras's v1 RMSprop had no iteration count among its weights: it restarts at 0.
        if len(self.weights) == len(weights) + 1:
            weights = [0, *weights]
        super().set_weights(weights)


class Adagrad(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7, name: str = "Adagrad", **kwargs: Any,
    ) -> None:  # fmt: skip
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"initial_accumulator_value must be non-negative: {initial_accumulator_value}"
            )
        if epsilon is None:
            epsilon = backend.epsilon()
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list: list[Any]) -> None:
        for var in var_list:
            dtype = var.dtype.base_dtype
            internal_deprecations.called_internally_with_argument(
                internal_deprecations.CONSTANT_DTYPE
            )
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            self.add_slot(var, "accumulator", init)

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        state = apply_state[(var_device, var_dtype)]
        state.update(
            epsilon=_epsilon(self.epsilon, var_dtype),
            neg_lr_t=-state["lr_t"],
            zero=array_ops.zeros((), dtype=dtypes.int64),
        )

    def set_weights(self, weights: list[Any]) -> None:
        if len(self.weights) == len(weights) + 1:
            weights = [0, *weights]
        super().set_weights(weights)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Optimizer:
        config = dict(config)
        config.setdefault("initial_accumulator_value", 0.0)
        return super().from_config(config, custom_objects)

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        return apply_rule(
            "ApplyAdagradV2", [var, self.get_slot(var, "accumulator")],
            [c["lr_t"], c["epsilon"], grad], {"use_locking": True, "update_slots": True},
        )  # fmt: skip

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        return apply_rule(
            "SparseApplyAdagradV2", [var, self.get_slot(var, "accumulator")],
            [c["lr_t"], c["epsilon"], grad, indices], {"use_locking": True, "update_slots": True},
        )  # fmt: skip

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["initial_accumulator_value"] = self._initial_accumulator_value
        return config


class Adadelta(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
        name: str = "Adadelta", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list: list[Any]) -> None:
        for var in var_list:
            self.add_slot(var, "accum_grad")
        for var in var_list:
            self.add_slot(var, "accum_var")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)].update(
            epsilon=_epsilon(self.epsilon, var_dtype),
            rho=array_ops.identity(self._get_hyper("rho", var_dtype)),
        )

    def set_weights(self, weights: list[Any]) -> None:
        if len(self.weights) == len(weights) + 1:
            weights = [0, *weights]
        super().set_weights(weights)

    def _slots_of(self, var: Any) -> list[Any]:
        return [var, self.get_slot(var, "accum_grad"), self.get_slot(var, "accum_var")]

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        values = [c["lr_t"], c["rho"], c["epsilon"], grad]
        return apply_rule("ApplyAdadelta", self._slots_of(var), values, {"use_locking": True})

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        values = [c["lr_t"], c["rho"], c["epsilon"], grad, indices]
        return apply_rule("SparseApplyAdadelta", self._slots_of(var), values, {"use_locking": True})


class Adamax(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
        epsilon: float = 1e-7, name: str = "Adamax", **kwargs: Any,
    ) -> None:  # fmt: skip
        learning_rate = kwargs.pop("lr", learning_rate)
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list: list[Any]) -> None:
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        state = apply_state[(var_device, var_dtype)]
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        beta_1_t = array_ops.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = array_ops.identity(self._get_hyper("beta_2", var_dtype))
        beta_1_power = math_ops.pow(beta_1_t, local_step)
        lr_t = state["lr_t"]
        state.update(
            neg_scaled_lr=-lr_t / (1 - beta_1_power),
            epsilon=_epsilon(self.epsilon, var_dtype),
            beta_1_t=beta_1_t,
            beta_1_power=beta_1_power,
            one_minus_beta_1_t=1 - beta_1_t,
            beta_2_t=beta_2_t,
            zero=array_ops.zeros((), dtype=dtypes.int64),
        )

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        slots = [var, self.get_slot(var, "m"), self.get_slot(var, "v")]
        values = [c["beta_1_power"], c["lr_t"], c["beta_1_t"], c["beta_2_t"], c["epsilon"], grad]
        return apply_rule("ApplyAdaMax", slots, values, {"use_locking": True})

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        m = self.get_slot(var, "m")
        m_slice = array_ops.gather(m, indices, axis=c["zero"])
        m_t_slice = m_slice * c["beta_1_t"] + grad * c["one_minus_beta_1_t"]
        with control_dependencies([m_t_slice]):
            m_t = self._resource_scatter_update(m, indices, m_t_slice)
        v = self.get_slot(var, "v")
        v_slice = array_ops.gather(v, indices, axis=c["zero"])
        v_t_slice = math_ops.maximum(v_slice * c["beta_2_t"], math_ops.abs(grad))
        with control_dependencies([v_t_slice]):
            v_t = self._resource_scatter_update(v, indices, v_t_slice)
        var_slice = c["neg_scaled_lr"] * (m_t_slice / (v_t_slice + c["epsilon"]))
        with control_dependencies([var_slice]):
            var_update = self._resource_scatter_add(var, indices, var_slice)
        return control_flow_ops.group(*[var_update, m_t, v_t])


class Nadam(Optimizer):
    def __init__(
        self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
        epsilon: float = 1e-7, name: str = "Nadam", **kwargs: Any,
    ) -> None:  # fmt: skip
        # Keras's v1 Nadam called its decay schedule_decay.
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
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self._m_cache: Any = None
        self._m_cache_read: Any = None

    def _create_slots(self, var_list: list[Any]) -> None:
        var_dtype = var_list[0].dtype.base_dtype
        if self._m_cache is None:
            self._m_cache = self.add_weight(
                "momentum_cache", shape=[], dtype=var_dtype, initializer="ones", trainable=False
            )
            self._weights.append(self._m_cache)
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare(self, var_list: list[Any]) -> dict[Any, dict[str, Any]]:
        # The momentum cache's value before any update of this step.
        self._m_cache_read = array_ops.identity(self._m_cache)
        return super()._prepare(var_list)

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        lr_t = array_ops.identity(self._get_hyper("learning_rate", var_dtype))
        beta_1_t = array_ops.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = array_ops.identity(self._get_hyper("beta_2", var_dtype))
        local_step = math_ops.cast(self.iterations + 1, var_dtype)
        next_step = math_ops.cast(self.iterations + 2, var_dtype)
        decay_base = math_ops.cast(0.96, var_dtype)
        m_t = beta_1_t * (1.0 - 0.5 * (math_ops.pow(decay_base, self._initial_decay * local_step)))
        m_t_1 = beta_1_t * (1.0 - 0.5 * (math_ops.pow(decay_base, self._initial_decay * next_step)))
        m_schedule_new = math_ops.cast(self._m_cache_read, var_dtype) * m_t
        if var_dtype == self._m_cache.dtype.base_dtype:
            m_schedule_new = array_ops.identity(self._m_cache.assign(m_schedule_new))
        m_schedule_next = m_schedule_new * m_t_1
        apply_state[(var_device, var_dtype)] = dict(
            lr_t=lr_t,
            neg_lr_t=-lr_t,
            epsilon=_epsilon(self.epsilon, var_dtype),
            beta_1_t=beta_1_t,
            beta_2_t=beta_2_t,
            m_t=m_t,
            m_t_1=m_t_1,
            one_minus_beta_1_t=1 - beta_1_t,
            one_minus_beta_2_t=1 - beta_2_t,
            one_minus_m_t=1.0 - m_t,
            one_minus_m_schedule_new=1.0 - m_schedule_new,
            one_minus_m_schedule_next=1.0 - m_schedule_next,
            v_t_prime_denominator=1.0 - math_ops.pow(beta_2_t, local_step),
        )

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = c["beta_1_t"] * m + c["one_minus_beta_1_t"] * grad
        m_t = m.assign(m_t)
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t = c["beta_2_t"] * v + c["one_minus_beta_2_t"] * math_ops.square(grad)
        v_t = v.assign(v_t)
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * m_t_prime
        var_t = var - c["lr_t"] * m_t_bar / (math_ops.sqrt(v_t_prime) + c["epsilon"])
        return var.assign(var_t).op

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_scaled_g_values = grad * c["one_minus_beta_1_t"]
        m_t = m.assign(m * c["beta_1_t"])
        with control_dependencies([m_t]):
            m_t = self._resource_scatter_add(m, indices, m_scaled_g_values)
            m_t_slice = array_ops.gather(m_t, indices)
        m_t_prime = m_t_slice / c["one_minus_m_schedule_next"]
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * m_t_prime
        v_scaled_g_values = (grad * grad) * c["one_minus_beta_2_t"]
        v_t = v.assign(v * c["beta_2_t"])
        with control_dependencies([v_t]):
            v_t = self._resource_scatter_add(v, indices, v_scaled_g_values)
            v_t_slice = array_ops.gather(v_t, indices)
        v_t_prime = v_t_slice / c["v_t_prime_denominator"]
        v_prime_sqrt_plus_eps = math_ops.sqrt(v_t_prime) + c["epsilon"]
        var_update = self._resource_scatter_add(
            var, indices, c["neg_lr_t"] * m_t_bar / v_prime_sqrt_plus_eps
        )
        return control_flow_ops.group(*[var_update, m_t_bar, v_t])


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
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list: list[Any]) -> None:
        for var in var_list:
            dtype = var.dtype.base_dtype
            internal_deprecations.called_internally_with_argument(
                internal_deprecations.CONSTANT_DTYPE
            )
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            self.add_slot(var, "accumulator", init)
            self.add_slot(var, "linear")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)].update(
            learning_rate_power=array_ops.identity(
                self._get_hyper("learning_rate_power", var_dtype)
            ),
            l1_regularization_strength=array_ops.identity(
                self._get_hyper("l1_regularization_strength", var_dtype)
            ),
            l2_regularization_strength=array_ops.identity(
                self._get_hyper("l2_regularization_strength", var_dtype)
            ),
            l2_shrinkage_regularization_strength=math_ops.cast(
                self._l2_shrinkage_regularization_strength, var_dtype
            ),
        )

    def _apply(self, rule: str, var: Any, grad: Any, indices: Any, apply_state: Any) -> Any:
        c = self._coefficients(var, apply_state)
        slots = [var, self.get_slot(var, "accumulator"), self.get_slot(var, "linear")]
        values = [grad, *([] if indices is None else [indices]), c["lr_t"]]
        values += [c["l1_regularization_strength"], c["l2_regularization_strength"]]
        if self._l2_shrinkage_regularization_strength > 0.0:
            rule += "V2"
            values.append(c["l2_shrinkage_regularization_strength"])
        values.append(c["learning_rate_power"])
        return apply_rule(rule, slots, values, {"use_locking": True})

    def _resource_apply_dense(self, grad: Any, var: Any, apply_state: Any = None) -> Any:
        return self._apply("ApplyFtrl", var, grad, None, apply_state)

    def _resource_apply_sparse(
        self, grad: Any, var: Any, indices: Any, apply_state: Any = None
    ) -> Any:
        return self._apply("SparseApplyFtrl", var, grad, indices, apply_state)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["initial_accumulator_value"] = self._initial_accumulator_value
        config["l2_shrinkage_regularization_strength"] = self._l2_shrinkage_regularization_strength
        return config


class TFOptimizer(Optimizer):
    """A tf.train optimizer given to compile(): it makes its own slots and step."""

    def __init__(self, optimizer: Any, iterations: Any = None) -> None:
        super().__init__("TFOptimizer")
        self.optimizer = optimizer
        if iterations is not None:
            self.iterations = iterations
            return
        # TF 1.15 makes its step counter when compile wraps the optimizer, at the top.
        with name_scope("TFOptimizer"):
            self.iterations = backend.variable(0, dtype="int64", name="iterations")

    def apply_gradients(
        self, grads_and_vars: list[tuple[Any, Any]], name: str | None = None
    ) -> Any:
        return self.optimizer.apply_gradients(grads_and_vars, global_step=self.iterations)

    def get_gradients(self, loss: Any, params: list[Any]) -> list[Any]:
        return [g for g, _ in self.optimizer.compute_gradients(loss, params)]

    # A tf.train optimizer has no config (TF 1.15): model_to_estimator and saving reuse the
    # instance instead.
    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError

    def from_config(self, config: Any) -> Any:  # type: ignore[override]
        raise NotImplementedError


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
