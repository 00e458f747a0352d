"""The checkpoint-remapping and SDCA ops have no gradient (TF 1.15's checkpoint_ops and
sdca_ops mark them not differentiable)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "GenerateVocabRemapping",
    "LoadAndRemapMatrix",
    "SdcaFprint",
    "SdcaOptimizer",
    "SdcaOptimizerV2",
    "SdcaShrinkL1",
):
    not_differentiable(_op)
