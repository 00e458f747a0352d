"""tf.train.experimental.MixedPrecisionLossScaleOptimizer (TF 1.15): wraps an optimizer so the
loss is multiplied by the loss scale before differentiation and the gradients divided by it
after; with a dynamic scale, a step whose gradients are not all finite applies nothing (not
even the global step) and lowers the scale."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import control_flow_ops
from tfcluster.training import loss_scale as loss_scale_module
from tfcluster.training.optimizer import Optimizer


class MixedPrecisionLossScaleOptimizer(Optimizer):
    def __init__(self, opt: Optimizer, loss_scale: Any) -> None:
        if not isinstance(opt, Optimizer):
            raise ValueError(f'"opt" must be an instance of Optimizer, but got: {type(opt)}')
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = loss_scale_module.get(loss_scale)

    def _doing_dynamic_loss_scaling(self) -> bool:
        return isinstance(self._loss_scale, loss_scale_module.DynamicLossScale)

    def compute_gradients(
        self,
        loss: Any,
        var_list: Any = None,
        gate_gradients: int = Optimizer.GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Any = None,
    ) -> list[tuple[Any, Any]]:
        grads_and_vars = self._optimizer.compute_gradients(
            loss=self._multiply_by_loss_scale(loss),
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        grads = self._unscale_grads([g for g, _ in grads_and_vars])
        return list(zip(grads, [v for _, v in grads_and_vars]))

    def _multiply_by_loss_scale(self, loss: Any) -> Any:
        scale = self._loss_scale()  # type: ignore[misc]
        if callable(loss):
            return lambda: loss() * scale
        return loss * scale

    def _unscale_grads(self, grads: list[Any]) -> list[Any]:
        reciprocal = 1 / self._loss_scale()  # type: ignore[misc]
        out: list[Any] = []
        for g in grads:
            if g is None:
                out.append(None)
            elif isinstance(g, IndexedSlices):
                out.append(IndexedSlices(g.values * reciprocal, g.indices, g.dense_shape))
            else:
                out.append(g * reciprocal)
        return out

    def apply_gradients(
        self, grads_and_vars: Any, global_step: Any = None, name: str | None = None
    ) -> Operation:
        if not self._doing_dynamic_loss_scaling():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        grads_and_vars = tuple(grads_and_vars)
        name = name if name is not None else self.get_name()
        update_scale, should_apply = self._loss_scale.update(  # type: ignore[union-attr]
            [g for g, _ in grads_and_vars]
        )

        def apply() -> Operation:
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name + "-wrapped")

        maybe_apply = control_flow_ops.cond(should_apply, apply, control_flow_ops.no_op)
        return control_flow_ops.group(maybe_apply, update_scale, name=name)

    # The wrapped optimizer updates the variables: these are never reached.
    def _apply_dense(self, grad: Any, var: Any) -> Any:
        raise RuntimeError("This function should never be called")

    def _apply_sparse(self, grad: Any, var: Any) -> Any:
        raise RuntimeError("This function should never be called")
