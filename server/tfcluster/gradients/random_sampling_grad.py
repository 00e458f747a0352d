"""Gradient of RandomGamma with respect to alpha (implicit reparameterisation, as TF's
random_grad); the other samplers have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops, random_sampling_ops


@RegisterGradient("RandomGamma")
def _random_gamma_grad(op: Operation, grad: Tensor) -> Any:
    shape, alpha = op.inputs
    sample = op.outputs[0]
    with control_dependencies([grad]):
        num_sample_dims = array_ops.shape(shape)[0]
        # alpha with a unit dimension per sample dimension in front, to broadcast.
        ones = array_ops.ones(array_ops.expand_dims(num_sample_dims, 0), dtype=dtypes.int32)
        alpha_b = array_ops.reshape(alpha, array_ops.concat([ones, array_ops.shape(alpha)], 0))
        partial_a = random_sampling_ops.random_gamma_grad(alpha_b, sample)
        summed = math_ops.reduce_sum(grad * partial_a, axis=math_ops.range(num_sample_dims))
        return [None, summed]


for _op in (
    "Multinomial",
    "StatelessMultinomial",
    "StatelessRandomUniform",
    "StatelessRandomNormal",
    "StatelessTruncatedNormal",
    "StatelessRandomUniformInt",
):
    not_differentiable(_op)
