"""tf.train.FtrlOptimizer: FTRL-Proximal (McMahan et al. 2013) as TF 1.15 builds it, with
learning_rate_power, initial_accumulator_value, L1/L2 regularization and the online L2
shrinkage (which switches the kernels to ApplyFtrlV2/SparseApplyFtrlV2). Slots 'accum'
(from a constant of initial_accumulator_value made beside the variable) and 'linear', named
'<var>/Ftrl' and '<var>/Ftrl_1' (or after accum_name/linear_name)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Tensor, colocate_with, convert_to_tensor
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import constant_op, math_ops, training_ops
from tfcluster.training.optimizer import Optimizer


class FtrlOptimizer(Optimizer):
    """Optimizer that implements the FTRL algorithm."""

    def __init__(
        self,
        learning_rate: Any,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "Ftrl",
        accum_name: str | None = None,
        linear_name: str | None = None,
        l2_shrinkage_regularization_strength: float = 0.0,
    ) -> None:
        super().__init__(use_locking, name)
        _at_least_zero("initial_accumulator_value", initial_accumulator_value, "positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(
                f"learning_rate_power {learning_rate_power:f} needs to be negative or zero"
            )
        _at_least_zero("l1_regularization_strength", l1_regularization_strength)
        _at_least_zero("l2_regularization_strength", l2_regularization_strength)
        _at_least_zero("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._learning_rate_tensor: Tensor | None = None
        self._learning_rate_power_tensor: Tensor | None = None
        self._l1_regularization_strength_tensor: Tensor | None = None
        self._l2_regularization_strength_tensor: Tensor | None = None
        self._l2_shrinkage_regularization_strength_tensor: Tensor | None = None
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list: list[Any]) -> None:
        for v in var_list:
            with colocate_with(v):
                val = constant_op.constant(
                    self._initial_accumulator_value,
                    dtype=v.dtype.base_dtype,
                    shape=v.get_shape(),
                )
                self._get_or_make_slot(v, val, "accum", self._accum_name or self._name)
                self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        self._l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength"
        )
        self._l2_shrinkage_regularization_strength_tensor = convert_to_tensor(
            self._l2_shrinkage_regularization_strength,
            name="l2_shrinkage_regularization_strength",
        )
        self._learning_rate_power_tensor = convert_to_tensor(
            self._learning_rate_power, name="learning_rate_power"
        )

    def _cast(self, t: Tensor | None, var: Any) -> Tensor:
        assert t is not None
        return math_ops.cast(t, var.dtype.base_dtype)

    def _hyper_for(self, var: Any) -> tuple[Tensor, Tensor, Tensor, Tensor | None, Tensor]:
        """(lr, l1, l2, the shrinkage strength or None when it is off, lr_power), cast."""
        shrinkage = None
        if self._l2_shrinkage_regularization_strength > 0.0:
            shrinkage = self._cast(self._l2_shrinkage_regularization_strength_tensor, var)
        return (
            self._cast(self._learning_rate_tensor, var),
            self._cast(self._l1_regularization_strength_tensor, var),
            self._cast(self._l2_regularization_strength_tensor, var),
            shrinkage,
            self._cast(self._learning_rate_power_tensor, var),
        )

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        accum = self.get_slot(var, "accum")
        linear = self.get_slot(var, "linear")
        lr, l1, l2, shrinkage, power = self._hyper_for(var)
        locking = self._use_locking
        if shrinkage is None:
            return training_ops.apply_ftrl(
                var, accum, linear, grad, lr, l1, l2, power, use_locking=locking
            )
        return training_ops.apply_ftrl_v2(
            var, accum, linear, grad, lr, l1, l2, shrinkage, power, use_locking=locking
        )

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        accum = self.get_slot(var, "accum")
        linear = self.get_slot(var, "linear")
        lr, l1, l2, shrinkage, power = self._hyper_for(var)
        rows, indices, locking = grad.values, grad.indices, self._use_locking
        if shrinkage is None:
            return training_ops.sparse_apply_ftrl(
                var, accum, linear, rows, indices, lr, l1, l2, power, use_locking=locking
            )
        return training_ops.sparse_apply_ftrl_v2(
            var,
            accum,
            linear,
            rows,
            indices,
            lr,
            l1,
            l2,
            shrinkage,
            power,
            use_locking=locking,
        )


def _at_least_zero(name: str, value: float, wording: str = "positive or zero") -> None:
    if value < 0.0:
        raise ValueError(f"{name} {value:f} needs to be {wording}")


__all__ = ["FtrlOptimizer"]
