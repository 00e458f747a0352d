"""tf.train.experimental's loss scales (TF 1.15): a loss multiplier that keeps small float16
gradients from underflowing. FixedLossScale never changes; DynamicLossScale doubles after
`increment_period` steps of finite gradients and halves (never below 1) on a step whose
gradients are not finite, which that step must then skip."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.func_graph import flatten
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tfcluster.ops import control_flow_ops, math_ops
from tfcluster.ops.variables import Variable


class LossScale(abc.ABC):
    """The loss scale as a scalar float32 tensor (call it), and `update(grads)` giving
    (an op updating the scale, whether this step's gradients may be applied)."""

    def __init__(self) -> None:
        # (name, graph) -> the variable of this scale in that graph.
        self._weights: dict[tuple[str, Any], Variable] = {}

    @abc.abstractmethod
    def __call__(self) -> Tensor: ...

    @abc.abstractmethod
    def update(self, grads: Any) -> tuple[Any, Any]: ...

    @abc.abstractmethod
    def get_config(self) -> dict[str, Any]: ...

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LossScale:
        return cls(**config)

    def _add_weight(self, name: str, initial_value: Any, dtype: Any) -> Variable:
        key = (name, get_default_graph())
        if key in self._weights:
            raise RuntimeError(f"Duplicate variables detected. {key}")
        variable = Variable(initial_value, name=name, dtype=dtype, trainable=False)
        self._weights[key] = variable
        return variable


class FixedLossScale(LossScale):
    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        if isinstance(loss_scale_value, bool) or not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self) -> Tensor:
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads: Any) -> tuple[Operation, bool]:
        del grads
        return control_flow_ops.no_op(), True

    def __repr__(self) -> str:
        return f"FixedLossScale({self._loss_scale_value})"

    def get_config(self) -> dict[str, Any]:
        return {"loss_scale_value": self._loss_scale_value}


def _all_finite(grads: Sequence[Any]) -> Tensor:
    per_grad = [math_ops.reduce_all(math_ops.is_finite(g)) for g in grads if g is not None]
    return math_ops.reduce_all(per_grad)


def _assign_if_finite(var: Variable, value: Tensor) -> Any:
    return control_flow_ops.cond(
        math_ops.is_finite(value), lambda: var.assign(value).op, control_flow_ops.no_op
    )


class DynamicLossScale(LossScale):
    def __init__(
        self,
        initial_loss_scale: float = 2**15,
        increment_period: int = 2000,
        multiplier: float = 2.0,
    ) -> None:
        super().__init__()
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight(
            "current_loss_scale", self._initial_loss_scale, dtypes.float32
        )
        self._num_good_steps = self._add_weight("good_steps", 0, dtypes.int64)

    @property
    def initial_loss_scale(self) -> float:
        return self._initial_loss_scale

    @property
    def increment_period(self) -> int:
        return self._increment_period

    @property
    def multiplier(self) -> float:
        return self._multiplier

    def __call__(self) -> Tensor:
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads: Any) -> tuple[Any, Tensor]:
        is_finite = _all_finite(flatten(grads))
        scale: Any = self._current_loss_scale
        good_steps: Any = self._num_good_steps

        def grow() -> Any:
            return control_flow_ops.group(
                _assign_if_finite(scale, scale * self._multiplier), good_steps.assign(0)
            )

        def on_finite() -> Any:
            return control_flow_ops.cond(
                good_steps + 1 >= self._increment_period,
                grow,
                lambda: good_steps.assign_add(1).op,
            )

        def on_not_finite() -> Any:
            return control_flow_ops.group(
                good_steps.assign(0),
                scale.assign(math_ops.maximum(scale / self._multiplier, 1)),
            )

        update_op = control_flow_ops.cond(is_finite, on_finite, on_not_finite)
        return update_op, is_finite

    def __repr__(self) -> str:
        return (
            f"DynamicLossScale(initial_loss_scale={self.initial_loss_scale}, "
            f"increment_period={self.increment_period}, multiplier={self.multiplier})"
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_loss_scale": self.initial_loss_scale,
            "increment_period": self.increment_period,
            "multiplier": self.multiplier,
        }


def get(identifier: Any) -> LossScale | None:
    """A number -> FixedLossScale, "dynamic" -> DynamicLossScale(), a LossScale as is."""
    if isinstance(identifier, (int, float)) and not isinstance(identifier, bool):
        return FixedLossScale(identifier)
    if isinstance(identifier, str) and identifier == "dynamic":
        return DynamicLossScale()
    if isinstance(identifier, LossScale) or identifier is None:
        return identifier
    raise ValueError(f"Could not interpret loss scale identifier: {identifier}")
