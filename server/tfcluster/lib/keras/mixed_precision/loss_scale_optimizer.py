"""tf.keras.mixed_precision.experimental.LossScaleOptimizer (TF 1.15): wraps a Keras
optimizer; the loss is multiplied by the loss scale before differentiating, the gradients
divided by it after, and a step whose gradients are not all finite is skipped (a dynamic
scale then halves; after `increment_period` good steps it doubles)."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import optimizers
from tfcluster.ops import control_flow_ops, math_ops
from tfcluster.training import loss_scale as loss_scale_module


class LossScaleOptimizer(optimizers.Optimizer):
    def __init__(self, opt: Any, loss_scale: Any) -> None:
        if not isinstance(opt, optimizers.Optimizer) or isinstance(opt, optimizers.TFOptimizer):
            raise ValueError(f'"opt" must be an instance of OptimizerV2, but got: {opt}')
        if opt.clipnorm is not None:
            raise ValueError(
                "LossScaleOptimizer does not support wrapping optimizers with a clipnorm. "
                f"Optimizer {opt} has clipnorm {opt.clipnorm}"
            )
        if opt.clipvalue is not None:
            raise ValueError(
                "LossScaleOptimizer does not support wrapping optimizers with a clipvalue. "
                f"Optimizer {opt} has clipvalue {opt.clipvalue}"
            )
        object.__setattr__(self, "_optimizer", opt)
        object.__setattr__(self, "_loss_scale", loss_scale_module.get(loss_scale))
        super().__init__(opt._name)
        self._hyper = {}

    @property
    def loss_scale(self) -> Any:
        return self._loss_scale

    def get_scaled_loss(self, loss: Any) -> Any:
        scale = self._loss_scale()
        if callable(loss):

            def scaled() -> Any:
                value = loss()
                return value * math_ops.cast(scale, value.dtype)

            return scaled
        return loss * math_ops.cast(scale, loss.dtype)

    def get_unscaled_gradients(self, grads: list[Any]) -> list[Any]:
        reciprocal = 1.0 / self._loss_scale()
        return [g * math_ops.cast(reciprocal, g.dtype) if g is not None else None for g in grads]

    def get_gradients(self, loss: Any, params: list[Any]) -> list[Any]:
        grads = self._optimizer.get_gradients(self.get_scaled_loss(loss), params)
        return self.get_unscaled_gradients(grads)

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None) -> Any:
        grads_and_vars = tuple(grads_and_vars)
        grads = [g for g, _ in grads_and_vars]
        update_scale, should_apply = self._loss_scale.update(grads)
        # The wrapped optimizer's variables are made outside the conditional step.
        self._optimizer._create_weights([v for g, v in grads_and_vars if g is not None])

        def apply() -> Any:
            step = self._optimizer.apply_gradients(grads_and_vars, name)
            return getattr(step, "op", step)

        if isinstance(should_apply, bool):
            step = apply() if should_apply else control_flow_ops.no_op()
        else:
            step = control_flow_ops.cond(should_apply, apply, control_flow_ops.no_op)
        return control_flow_ops.group(step, update_scale)

    # ---- the wrapped optimizer's state -----------------------------------------------------
    @property
    def iterations(self) -> Any:
        return self._optimizer.iterations

    @iterations.setter
    def iterations(self, variable: Any) -> None:
        self._optimizer.iterations = variable

    @property
    def learning_rate(self) -> Any:
        return self._optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self._optimizer.learning_rate = value

    lr = learning_rate

    def get_slot_names(self) -> list[str]:
        return self._optimizer.get_slot_names()

    def variables(self) -> list[Any]:
        return self._optimizer.variables()

    weights = property(variables)

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError("get_config() is not yet implemented for LossScaleOptimizers")

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Any:
        raise NotImplementedError("from_config() is not yet implemented for LossScaleOptimizers")
