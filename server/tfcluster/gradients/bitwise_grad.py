"""Bitwise ops have no gradient (TF 1.15's bitwise_ops marks them not differentiable)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift"):
    not_differentiable(_op)
