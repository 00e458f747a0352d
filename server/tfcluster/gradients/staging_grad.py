"""Staging areas hand values between steps: no gradient (as TF's data_flow_ops says)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import staging_ops

for _op in staging_ops.OP_TYPES:
    not_differentiable(_op)
