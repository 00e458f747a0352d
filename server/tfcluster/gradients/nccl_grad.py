"""Gradients of the NCCL ops, as TF 1.15's nccl_ops.py registers them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, device
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import nccl_ops


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@RegisterGradient("NcclAllReduce")
def _all_sum_grad(op: Operation, grad: Any) -> Any:
    if _text(op._get_attr("reduction")) != "sum":
        raise LookupError("No gradient defined for NcclAllReduce except sum.")
    nccl_ops._check_device(grad, expected=op.device)
    with device(op.device):
        return nccl_ops.nccl_all_reduce(
            grad, "sum", op._get_attr("num_devices"), _text(op._get_attr("shared_name")) + "_grad"
        )


@RegisterGradient("NcclReduce")
def _reduce_sum_grad(op: Operation, grad: Any) -> Any:
    if _text(op._get_attr("reduction")) != "sum":
        raise LookupError("No gradient defined for NcclReduce except sum.")
    nccl_ops._check_device(grad, expected=op.device)
    with device(op.device):
        result = nccl_ops.nccl_broadcast(grad, shape=grad.shape)
    return [result] * len(op.inputs)


@RegisterGradient("NcclBroadcast")
def _broadcast_grad(op: Operation, accumulated_grad: Any) -> Any:
    # As TF: the inputs of the op that accumulated the gradient, reduced with NcclReduce.
    grads = list(accumulated_grad.op.inputs)
    for t in grads:
        nccl_ops._check_device(t)
    with device(op.device):
        return nccl_ops.nccl_reduce(grads, "sum")
