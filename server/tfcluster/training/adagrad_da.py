"""tf.train.AdagradDAOptimizer: Adagrad dual averaging (Duchi et al. 2011), for sparse linear
models, as TF 1.15 builds it: slots 'gradient_accumulator' and
'gradient_squared_accumulator' ('<var>/AdagradDA', '<var>/AdagradDA_1', from constants made
beside the variable), and the global step + 1 read where the learning rate lives, then on the
variable's device; kernels ApplyAdagradDA and SparseApplyAdagradDA."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, colocate_with, convert_to_tensor, device
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import array_ops, constant_op, math_ops, training_ops
from tfcluster.training.optimizer import Optimizer


class AdagradDAOptimizer(Optimizer):
    """Adagrad Dual Averaging algorithm for sparse linear models."""

    def __init__(
        self,
        learning_rate: Any,
        global_step: Any,
        initial_gradient_squared_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "AdagradDA",
    ) -> None:
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(
                "initial_gradient_squared_accumulator_value must be positive: "
                f"{initial_gradient_squared_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = (
            initial_gradient_squared_accumulator_value
        )
        self._learning_rate_tensor: Tensor | None = None
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker: Tensor | None = None

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            base = v.dtype.base_dtype
            with colocate_with(v):
                g_val = constant_op.constant(0.0, shape=v.get_shape(), dtype=base)
                gg_val = constant_op.constant(
                    self._initial_gradient_squared_accumulator_value,
                    shape=v.get_shape(),
                    dtype=base,
                )
            self._get_or_make_slot(v, g_val, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, gg_val, "gradient_squared_accumulator", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        # Performance optimization so that worker creates a copy of the global step to avoid
        # overloading the parameter server holding the global step (TF's words).
        with colocate_with(self._learning_rate_tensor):
            self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _inputs(self, var: Any) -> tuple[Any, ...]:
        """(the two slots, lr, l1, l2 cast to the variable's dtype, the step on its device)."""
        assert self._learning_rate_tensor is not None
        assert self._global_step_on_worker is not None
        slots = (
            self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"),
        )
        with device(var.device):
            global_step = array_ops.identity(self._global_step_on_worker)
        base = var.dtype.base_dtype
        return (
            *slots,
            math_ops.cast(self._learning_rate_tensor, base),
            math_ops.cast(self._l1_regularization_strength, base),
            math_ops.cast(self._l2_regularization_strength, base),
            global_step,
        )

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        g_acc, gg_acc, lr, l1, l2, global_step = self._inputs(var)
        return training_ops.apply_adagrad_da(
            var, g_acc, gg_acc, grad, lr, l1, l2, global_step, use_locking=self._use_locking
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        g_acc, gg_acc, lr, l1, l2, global_step = self._inputs(var)
        return training_ops.sparse_apply_adagrad_da(
            var,
            g_acc,
            gg_acc,
            grad.values,
            grad.indices,
            lr,
            l1,
            l2,
            global_step,
            use_locking=self._use_locking,
        )


__all__ = ["AdagradDAOptimizer"]
