"""The set operations and SetSize have no gradient, as in TF 1.15 (their outputs are
indices, set elements and counts)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "DenseToDenseSetOperation",
    "DenseToSparseSetOperation",
    "SparseToSparseSetOperation",
    "SetSize",
):
    not_differentiable(_op)
