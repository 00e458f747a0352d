"""Gradients of CudnnRNN, CudnnRNNV2 and CudnnRNNV3: their backprop ops, as TF 1.15's
cudnn_rnn_grad.py builds them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import make_op

_COMMON = ("T", "rnn_mode", "input_mode", "direction", "dropout", "seed", "seed2")


def _backprop(op: Operation, grads: tuple[Any, ...], op_type: str, extra: tuple[str, ...]) -> Any:
    if not op._get_attr("is_training"):
        raise ValueError("To use CudnnRNN in gradients, is_training must be set to True.")
    outs = op.outputs
    filled = [g if g is not None else array_ops.zeros_like(t) for g, t in zip(grads[:3], outs[:3])]
    inputs = list(op.inputs)
    state = [*outs[:3], *filled, outs[3]]
    if op_type != "CudnnRNNBackprop":
        state.append(outs[4])
    attrs = {name: op._get_attr(name) for name in (*_COMMON, *extra)}
    back = make_op(op_type, [*inputs, *state], attrs, name=op_type)
    result: list[Any] = list(back.outputs)
    if op_type == "CudnnRNNBackpropV3":
        result.append(None)  # sequence_lengths
    return result


@RegisterGradient("CudnnRNN")
def _cudnn_rnn_backward(op: Operation, *grads: Any) -> Any:
    return _backprop(op, grads, "CudnnRNNBackprop", ())


@RegisterGradient("CudnnRNNV2")
def _cudnn_rnn_backward_v2(op: Operation, *grads: Any) -> Any:
    return _backprop(op, grads, "CudnnRNNBackpropV2", ())


@RegisterGradient("CudnnRNNV3")
def _cudnn_rnn_backward_v3(op: Operation, *grads: Any) -> Any:
    return _backprop(op, grads, "CudnnRNNBackpropV3", ("num_proj", "time_major"))
