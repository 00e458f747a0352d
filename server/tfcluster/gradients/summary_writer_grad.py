"""Summary writer ops write files: no gradient."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import summary_writer_ops

for _op in summary_writer_ops.OP_TYPES:
    not_differentiable(_op)
