"""Session-handle ops have no gradient (TF 1.15's session_ops marks them not differentiable)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in ("GetSessionHandle", "GetSessionHandleV2", "GetSessionTensor", "DeleteSessionTensor"):
    not_differentiable(_op)
