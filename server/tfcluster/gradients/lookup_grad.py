"""Lookup tables have no gradient (TF's lookup_ops marks its ops not differentiable)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import lookup_ops

for _op in lookup_ops.OP_TYPES:
    not_differentiable(_op)
