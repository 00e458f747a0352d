"""Assert has no gradient (TF marks it the same way)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import logging_ops

for _op in logging_ops.OP_TYPES:
    not_differentiable(_op)
