"""Random ops have no gradient (their outputs do not depend on their inputs' values smoothly)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "RandomStandardNormal",
    "TruncatedNormal",
    "RandomUniform",
):
    not_differentiable(_op)
