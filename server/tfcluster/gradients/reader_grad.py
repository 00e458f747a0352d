"""Reader ops and MatchingFiles have no gradient: they read files, their values are strings
(TF marks them the same way)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import reader_ops

for _op in reader_ops.OP_TYPES:
    not_differentiable(_op)
