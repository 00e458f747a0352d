"""tf.train.ProximalAdagradOptimizer: Adagrad's per-coordinate rate followed by the FOBOS
proximal step for L1 and L2 regularization; slot 'accumulator' ('<var>/ProximalAdagrad')
initialised from a constant made beside the variable; kernels ApplyProximalAdagrad and
SparseApplyProximalAdagrad, as TF 1.15 builds them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, colocate_with, convert_to_tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import constant_op, training_ops
from tfcluster.training.optimizer import Optimizer


class ProximalAdagradOptimizer(Optimizer):
    """Optimizer that implements the Proximal Adagrad algorithm."""

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: Any = 0.0,
        l2_regularization_strength: Any = 0.0,
        use_locking: bool = False,
        name: str = "ProximalAdagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._learning_rate_tensor: Tensor | None = None
        self._l1_regularization_strength_tensor: Tensor | None = None
        self._l2_regularization_strength_tensor: Tensor | None = None

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            with colocate_with(v):
                val = constant_op.constant(
                    self._initial_accumulator_value,
                    shape=v.get_shape(),
                    dtype=v.dtype.base_dtype,
                )
            self._get_or_make_slot(v, val, "accumulator", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        self._l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength"
        )

    def _hyper_tensors(self) -> tuple[Tensor, Tensor, Tensor]:
        lr = self._learning_rate_tensor
        l1 = self._l1_regularization_strength_tensor
        l2 = self._l2_regularization_strength_tensor
        assert lr is not None and l1 is not None and l2 is not None
        return lr, l1, l2

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        return training_ops.apply_proximal_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            *self._hyper_tensors(),
            grad,
            use_locking=self._use_locking,
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.sparse_apply_proximal_adagrad(
            var,
            self.get_slot(var, "accumulator"),
            *self._hyper_tensors(),
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        )


__all__ = ["ProximalAdagradOptimizer"]
