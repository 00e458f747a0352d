"""tfcluster's own dataset ops have no gradient. TF 1.15 registers none of its dataset and
iterator ops (a gradient reaching one raises LookupError), so neither does this table."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "_PyGeneratorDataset",
    "AssertCardinalityDataset",
    "ReduceDataset",
):
    not_differentiable(_op)
