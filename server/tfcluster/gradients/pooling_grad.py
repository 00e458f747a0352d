"""Gradients of the pooling ops (TF's nn_grad.py), first and second order: a max pool's
gradient is MaxPoolGrad, whose own gradient is MaxPoolGradGrad (and back again); an
average pool's is AvgPoolGrad, whose gradient is the average pool of the incoming gradient."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops
from tfcluster.ops.pooling_ops import pool_grad_op, pool_with_attrs


def _zeros_like_shape(t: Tensor) -> Tensor:
    return array_ops.zeros(array_ops.shape(t), dtype=t.dtype.base_dtype)


def _max_grad(grad_op: str, with_input_type: bool) -> Any:
    def fn(op: Operation, grad: Tensor) -> Any:
        extra: dict[str, Any] = {"TInput": op.inputs[0].dtype.base_dtype} if with_input_type else {}
        return [pool_grad_op(grad_op, [op.inputs[0], op.outputs[0], grad], op, **extra)]

    return fn


def _max_grad_of_grad(next_op: str, with_input_type: bool) -> Any:
    """The gradient of MaxPoolGrad (-> MaxPoolGradGrad) and of MaxPoolGradGrad (->
    MaxPoolGrad): only the incoming gradient's path is differentiable."""

    def fn(op: Operation, grad: Tensor) -> Any:
        x, y = op.inputs[0], op.inputs[1]
        extra: dict[str, Any] = {"TInput": x.dtype.base_dtype} if with_input_type else {}
        return [
            _zeros_like_shape(x),
            _zeros_like_shape(y),
            pool_grad_op(next_op, [x, y, grad], op, **extra),
        ]

    return fn


def _avg_grad(grad_op: str) -> Any:
    def fn(op: Operation, grad: Tensor) -> Any:
        return [pool_grad_op(grad_op, [array_ops.shape(op.inputs[0]), grad], op)]

    return fn


def _avg_grad_of_grad(forward: str) -> Any:
    def fn(op: Operation, grad: Tensor) -> Any:
        return [array_ops.stop_gradient(op.inputs[0]), pool_with_attrs(forward, grad, op)]

    return fn


RegisterGradient("MaxPool")(_max_grad("MaxPoolGrad", False))
RegisterGradient("MaxPool3D")(_max_grad("MaxPool3DGrad", True))
RegisterGradient("MaxPoolGrad")(_max_grad_of_grad("MaxPoolGradGrad", False))
RegisterGradient("MaxPoolGradGrad")(_max_grad_of_grad("MaxPoolGrad", False))
RegisterGradient("MaxPool3DGrad")(_max_grad_of_grad("MaxPool3DGradGrad", False))
RegisterGradient("MaxPool3DGradGrad")(_max_grad_of_grad("MaxPool3DGrad", True))
RegisterGradient("AvgPool")(_avg_grad("AvgPoolGrad"))
RegisterGradient("AvgPool3D")(_avg_grad("AvgPool3DGrad"))
RegisterGradient("AvgPoolGrad")(_avg_grad_of_grad("AvgPool"))
RegisterGradient("AvgPool3DGrad")(_avg_grad_of_grad("AvgPool3D"))


@RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op: Operation, grad: Tensor, unused_argmax_grad: Any) -> Any:
    extra = {
        "Targmax": op._get_attr("Targmax"),
        "include_batch_in_index": op._get_attr("include_batch_in_index"),
    }
    inputs = [op.inputs[0], grad, op.outputs[1]]
    return [pool_grad_op("MaxPoolGradWithArgmax", inputs, op, grad_index=1, **extra)]
