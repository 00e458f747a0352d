"""tf.train.ProximalGradientDescentOptimizer: gradient descent followed by the FOBOS proximal
step for L1 and L2 regularization (no slots); kernels ApplyProximalGradientDescent and
SparseApplyProximalGradientDescent, as TF 1.15 builds them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import training_ops
from tfcluster.training.optimizer import Optimizer


class ProximalGradientDescentOptimizer(Optimizer):
    """Optimizer that implements the proximal gradient descent algorithm."""

    def __init__(
        self,
        learning_rate: Any,
        l1_regularization_strength: Any = 0.0,
        l2_regularization_strength: Any = 0.0,
        use_locking: bool = False,
        name: str = "ProximalGradientDescent",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._learning_rate_tensor: Tensor | None = None
        self._l1_regularization_strength_tensor: Tensor | None = None
        self._l2_regularization_strength_tensor: Tensor | None = None

    def _prepare(self) -> None:
        # TF 1.15 converts these as they are (no callables) and casts none of them.
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
        return training_ops.as_operation(
            training_ops.apply_proximal_gradient_descent(
                var, *self._hyper_tensors(), grad, use_locking=self._use_locking
            )
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.as_operation(
            training_ops.sparse_apply_proximal_gradient_descent(
                var,
                *self._hyper_tensors(),
                grad.values,
                grad.indices,
                use_locking=self._use_locking,
            )
        )


__all__ = ["ProximalGradientDescentOptimizer"]
