"""The optimizers' Apply* ops have no gradient: they update variables in place, the last
step of a training step, and nothing differentiates through them."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import training_ops

for _op in training_ops.OP_TYPES:
    not_differentiable(_op)
