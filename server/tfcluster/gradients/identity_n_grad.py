"""IdentityN's gradient: each output's gradient goes to its input unchanged."""

from __future__ import annotations

from typing import Any

from tfcluster.gradients.registry import RegisterGradient


@RegisterGradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Any) -> list[Any]:
    return list(grads)
