"""tf.train.AdadeltaOptimizer (Zeiler 2012), TF 1.15's: slots 'accum' (the running mean of
squared gradients) and 'accum_update' (of squared updates), named '<var>/Adadelta' and
'<var>/Adadelta_1'; kernels ApplyAdadelta and SparseApplyAdadelta."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import math_ops, training_ops
from tfcluster.training.optimizer import Optimizer


class AdadeltaOptimizer(Optimizer):
    """Optimizer that implements the Adadelta algorithm."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: Any = 0.95,
        epsilon: Any = 1e-8,
        use_locking: bool = False,
        name: str = "Adadelta",
    ) -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon
        self._lr_t: Tensor | None = None
        self._rho_t: Tensor | None = None
        self._epsilon_t: Tensor | None = None

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self) -> None:
        self._lr_t = self._hyper(self._lr, "lr")
        self._rho_t = self._hyper(self._rho, "rho")
        self._epsilon_t = self._hyper(self._epsilon, "epsilon")

    def _hyper_for(self, var: Any) -> tuple[Tensor, Tensor, Tensor]:
        assert self._lr_t is not None and self._rho_t is not None and self._epsilon_t is not None
        base = var.dtype.base_dtype
        return (
            math_ops.cast(self._lr_t, base),
            math_ops.cast(self._rho_t, base),
            math_ops.cast(self._epsilon_t, base),
        )

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        return training_ops.apply_adadelta(
            var,
            self.get_slot(var, "accum"),
            self.get_slot(var, "accum_update"),
            *self._hyper_for(var),
            grad,
            use_locking=self._use_locking,
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return training_ops.sparse_apply_adadelta(
            var,
            self.get_slot(var, "accum"),
            self.get_slot(var, "accum_update"),
            *self._hyper_for(var),
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        )


__all__ = ["AdadeltaOptimizer"]
