"""The SparseTensorsMap ops pass tensors between steps: no gradient (as in TF)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable
from tfcluster.ops import sparse_tensors_map_ops

for _op in sparse_tensors_map_ops.OP_TYPES:
    not_differentiable(_op)
