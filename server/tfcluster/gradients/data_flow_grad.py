"""Queue and accumulator ops have no gradient: they hand values between steps and
tasks, they do not compute a function of their inputs."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import data_flow_ops

for _op in data_flow_ops.OP_TYPES:
    not_differentiable(_op)
