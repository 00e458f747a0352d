"""The dataset and iterator ops of ops/dataset_more_ops.py, and LMDBReader, have no
gradient."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import dataset_more_ops

for _op in dataset_more_ops.OP_TYPES:
    not_differentiable(_op)
not_differentiable("LMDBReader")
