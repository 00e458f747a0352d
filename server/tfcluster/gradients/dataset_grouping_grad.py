"""The grouping, writing and Optional dataset ops have no gradient (they produce the data a
model reads)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import dataset_grouping_ops, optional_ops

for _op in dataset_grouping_ops.OP_TYPES:
    not_differentiable(_op)

for _op in optional_ops.OP_TYPES:
    not_differentiable(_op)
