"""The TF1 optimizers: GradientDescent, Momentum, Adam, Adagrad, RMSProp, each with its dense
update and its sparse one (an IndexedSlices gradient: only its rows change, see optimizer.py).

Slot names and the variables they make follow TF: Momentum's 'w/Momentum', Adam's 'w/Adam'
(m) and 'w/Adam_1' (v) plus 'beta1_power'/'beta2_power' colocated with the first variable by
name, Adagrad's 'w/Adagrad', RMSProp's 'w/RMSProp' (rms), ('w/RMSProp_1' mg when centered),
then the momentum slot.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import internal_deprecations
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    get_default_graph,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import init_ops, math_ops, scatter_ops, state_ops, training_ops
from tfcluster.ops.control_flow_ops import group
from tfcluster.ops.variables import is_resource_variable
from tfcluster.training.optimizer import Optimizer, cast_like
from tfcluster.training.slot_creator import constant_initializer


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad."""

    def __init__(
        self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor: Tensor | None = None

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad: Tensor, var: Any) -> Operation:
        assert self._learning_rate_tensor is not None
        return training_ops.as_operation(
            training_ops.apply_gradient_descent(
                var, cast_like(self._learning_rate_tensor, var), grad, use_locking=self._use_locking
            )
        )

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        # ScatterSub adds repeated rows up itself: no deduplication needed.
        assert self._learning_rate_tensor is not None
        if is_resource_variable(var):
            # TF adds the negated step to a resource variable's rows, the op alone
            # (ResourceScatterAdd), scaled by the learning rate as given (a number becomes
            # the product's own constant).
            rate = self._learning_rate
            if callable(rate):
                rate = self._learning_rate_tensor
            return var.scatter_op("Add", grad.indices, -grad.values * rate)
        lr = math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        delta = IndexedSlices(grad.values * lr, grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (Nesterov: lr * (grad + m * accum))."""

    def __init__(
        self,
        learning_rate: Any,
        momentum: Any,
        use_locking: bool = False,
        name: str = "Momentum",
        use_nesterov: bool = False,
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov
        self._learning_rate_tensor: Tensor | None = None
        self._momentum_tensor: Tensor | None = None

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper(self._learning_rate, "learning_rate")
        self._momentum_tensor = self._hyper(self._momentum, "momentum")

    def _apply_dense(self, grad: Tensor, var: Any) -> Operation:
        assert self._learning_rate_tensor is not None and self._momentum_tensor is not None
        mom = self.get_slot(var, "momentum")
        return training_ops.as_operation(
            training_ops.apply_momentum(
                var,
                mom,
                cast_like(self._learning_rate_tensor, var),
                grad,
                cast_like(self._momentum_tensor, var),
                use_locking=self._use_locking,
                use_nesterov=self._use_nesterov,
            )
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        assert self._learning_rate_tensor is not None and self._momentum_tensor is not None
        return training_ops.as_operation(
            training_ops.sparse_apply_momentum(
                var,
                self.get_slot(var, "momentum"),
                math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype),
                grad.values,
                grad.indices,
                math_ops.cast(self._momentum_tensor, var.dtype.base_dtype),
                use_locking=self._use_locking,
                use_nesterov=self._use_nesterov,
            )
        )


class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba) with TF's bias correction folded into the step size."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta1: Any = 0.9,
        beta2: Any = 0.999,
        epsilon: Any = 1e-8,
        use_locking: bool = False,
        name: str = "Adam",
    ) -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t: Tensor | None = None
        self._beta1_t: Tensor | None = None
        self._beta2_t: Tensor | None = None
        self._epsilon_t: Tensor | None = None

    def _get_beta_accumulators(self) -> tuple[Any, Any]:
        graph = get_default_graph()
        return (
            self._get_non_slot_variable("beta1_power", graph),
            self._get_non_slot_variable("beta2_power", graph),
        )

    def _create_slots(self, var_list: list[Any]) -> None:
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._lr_t = self._hyper(self._lr, "learning_rate")
        self._beta1_t = self._hyper(self._beta1, "beta1")
        self._beta2_t = self._hyper(self._beta2, "beta2")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad: Tensor, var: Any) -> Operation:
        assert self._lr_t is not None and self._beta1_t is not None
        assert self._beta2_t is not None and self._epsilon_t is not None
        beta1_power, beta2_power = self._get_beta_accumulators()
        base = var.dtype.base_dtype
        return training_ops.as_operation(
            training_ops.apply_adam(
                var,
                self.get_slot(var, "m"),
                self.get_slot(var, "v"),
                math_ops.cast(beta1_power, base),
                math_ops.cast(beta2_power, base),
                cast_like(self._lr_t, var),
                cast_like(self._beta1_t, var),
                cast_like(self._beta2_t, var),
                cast_like(self._epsilon_t, var),
                grad,
                use_locking=self._use_locking,
            )
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        use_locking = self._use_locking
        if is_resource_variable(var):
            return self._apply_sparse_shared(
                grad.values, var, grad.indices, self._resource_scatter_add
            )
        return self._apply_sparse_shared(
            grad.values,
            var,
            grad.indices,
            lambda x, i, v: scatter_ops.scatter_add(x, i, v, use_locking=use_locking),
        )

    @staticmethod
    def _resource_scatter_add(x: Any, i: Tensor, v: Tensor) -> Tensor:
        """TF's: the rows added (ResourceScatterAdd), then a read of the slot after them."""
        with control_dependencies([x.scatter_op("Add", i, v)]):
            return x.value()  # type: ignore[no-any-return]

    def _apply_sparse_shared(
        self, grad: Tensor, var: Any, indices: Tensor, scatter_add: Any
    ) -> Any:
        """TF 1.15's sparse Adam: m and v decay everywhere (dense assigns), the gradient's
        rows are added with scatter_add, and the variable moves everywhere by lr * m / sqrt(v)."""
        assert self._lr_t is not None and self._beta1_t is not None
        assert self._beta2_t is not None and self._epsilon_t is not None
        base = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power = math_ops.cast(beta1_power, base)
        beta2_power = math_ops.cast(beta2_power, base)
        lr_t = math_ops.cast(self._lr_t, base)
        beta1_t = math_ops.cast(self._beta1_t, base)
        beta2_t = math_ops.cast(self._beta2_t, base)
        epsilon_t = math_ops.cast(self._epsilon_t, base)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m = self.get_slot(var, "m")
        m_scaled_g_values = grad * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled_g_values)
        v = self.get_slot(var, "v")
        v_scaled_g_values = (grad * grad) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled_g_values)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(
            var, lr * m_t / (v_sqrt + epsilon_t), use_locking=self._use_locking
        )
        return group(var_update, m_t, v_t)

    def _finish(self, update_ops: list[Operation], name_scope: str) -> Operation:
        assert self._beta1_t is not None and self._beta2_t is not None
        with control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with colocate_with(beta1_power.op):
                # `*` as TF writes it: the op is 'mul' (a resource variable reads itself).
                update_beta1 = beta1_power.assign(
                    beta1_power * cast_like(self._beta1_t, beta1_power),
                    use_locking=self._use_locking,
                )
                update_beta2 = beta2_power.assign(
                    beta2_power * cast_like(self._beta2_t, beta2_power),
                    use_locking=self._use_locking,
                )
        return group(*update_ops, update_beta1, update_beta2, name=name_scope)


class AdagradOptimizer(Optimizer):
    """accum += grad^2; var -= lr * grad / sqrt(accum)."""

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        use_locking: bool = False,
        name: str = "Adagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor: Tensor | None = None

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            # TF's: a Const of the value when the shape is known (one op: later op seeds
            # depend on the count), else a Fill.
            if v.get_shape().is_fully_defined():
                internal_deprecations.called_internally_with_argument(
                    internal_deprecations.CONSTANT_DTYPE
                )
            init = (
                init_ops.constant_initializer(
                    self._initial_accumulator_value, dtype=v.dtype.base_dtype
                )
                if v.get_shape().is_fully_defined()
                else constant_initializer(self._initial_accumulator_value)
            )
            self._get_or_make_slot_with_initializer(
                v,
                init,
                v.get_shape().as_list(),
                v.dtype.base_dtype,
                "accumulator",
                self._name,
            )

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper(self._learning_rate, "learning_rate")

    def _apply_dense(self, grad: Tensor, var: Any) -> Operation:
        assert self._learning_rate_tensor is not None
        return training_ops.as_operation(
            training_ops.apply_adagrad(
                var,
                self.get_slot(var, "accumulator"),
                cast_like(self._learning_rate_tensor, var),
                grad,
                use_locking=self._use_locking,
            )
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        assert self._learning_rate_tensor is not None
        return training_ops.sparse_apply_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype),
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        )


class RMSPropOptimizer(Optimizer):
    """RMSProp with momentum; `centered` also tracks the mean gradient (normalises by variance)."""

    def __init__(
        self,
        learning_rate: Any,
        decay: Any = 0.9,
        momentum: Any = 0.0,
        epsilon: Any = 1e-10,
        use_locking: bool = False,
        centered: bool = False,
        name: str = "RMSProp",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._learning_rate_tensor: Tensor | None = None
        self._decay_tensor: Tensor | None = None
        self._momentum_tensor: Tensor | None = None
        self._epsilon_tensor: Tensor | None = None

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            # TF's ones_initializer: a Const named 'ones' when small (later op seeds depend
            # on the op count), a Fill when large.
            init = (
                init_ops.ones_initializer(dtype=v.dtype.base_dtype)
                if v.get_shape().is_fully_defined()
                else constant_initializer(1.0)
            )
            self._get_or_make_slot_with_initializer(
                v,
                init,
                v.get_shape().as_list(),
                v.dtype.base_dtype,
                "rms",
                self._name,
            )
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = self._hyper(self._learning_rate, "learning_rate")
        self._decay_tensor = self._hyper(self._decay, "decay")
        self._momentum_tensor = self._hyper(self._momentum, "momentum")
        self._epsilon_tensor = self._hyper(self._epsilon, "epsilon")

    def _apply_dense(self, grad: Tensor, var: Any) -> Operation:
        assert self._learning_rate_tensor is not None and self._decay_tensor is not None
        assert self._momentum_tensor is not None and self._epsilon_tensor is not None
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        hyper = (
            cast_like(self._learning_rate_tensor, var),
            cast_like(self._decay_tensor, var),
            cast_like(self._momentum_tensor, var),
            cast_like(self._epsilon_tensor, var),
        )
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.as_operation(
                training_ops.apply_centered_rms_prop(
                    var, mg, rms, mom, *hyper, grad, use_locking=self._use_locking
                )
            )
        return training_ops.as_operation(
            training_ops.apply_rms_prop(var, rms, mom, *hyper, grad, use_locking=self._use_locking)
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        assert self._learning_rate_tensor is not None and self._decay_tensor is not None
        assert self._momentum_tensor is not None and self._epsilon_tensor is not None
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        base = var.dtype.base_dtype
        hyper = (
            math_ops.cast(self._learning_rate_tensor, base),
            math_ops.cast(self._decay_tensor, base),
            math_ops.cast(self._momentum_tensor, base),
            math_ops.cast(self._epsilon_tensor, base),
        )
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.sparse_apply_centered_rms_prop(
                var, mg, rms, mom, *hyper, grad.values, grad.indices, use_locking=self._use_locking
            )
        return training_ops.sparse_apply_rms_prop(
            var, rms, mom, *hyper, grad.values, grad.indices, use_locking=self._use_locking
        )


__all__ = [
    "AdagradOptimizer",
    "AdamOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "RMSPropOptimizer",
]
