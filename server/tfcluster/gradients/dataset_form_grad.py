"""The dataset ops of ops/dataset_form_ops.py have no gradient."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import dataset_form_ops

for _op in dataset_form_ops.OP_TYPES:
    not_differentiable(_op)
