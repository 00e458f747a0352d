"""Summary ops have no gradient: their outputs are serialized protos for TensorBoard."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import summary_ops

for _op in summary_ops.OP_TYPES:
    not_differentiable(_op)
