"""The sparse accumulator's ops have no gradient (as the dense one's: they hand values between
steps and tasks)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import sparse_data_flow_ops

for _op in sparse_data_flow_ops.OP_TYPES:
    not_differentiable(_op)
