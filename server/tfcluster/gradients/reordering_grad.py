"""Gradients of reverse_sequence and roll (the same reordering applied backwards); the
counting ops (bincount, unique_with_counts, setdiff1d, histograms) have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import counting_ops, math_ops


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op: Operation, grad: Tensor) -> Any:
    lengths = op.inputs[1]
    return [
        counting_ops.reverse_sequence(
            grad,
            lengths,
            seq_axis=op._get_attr("seq_dim"),
            batch_axis=op._get_attr("batch_dim"),
        ),
        None,
    ]


@RegisterGradient("Roll")
def _roll_grad(op: Operation, grad: Tensor) -> Any:
    shift, axis = op.inputs[1], op.inputs[2]
    return [counting_ops.roll(grad, math_ops.negative(shift), axis), None, None]


not_differentiable("LinSpace")
