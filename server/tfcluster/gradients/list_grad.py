"""TensorList ops without a gradient (TF 1.15's list_ops marks these not differentiable)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "TensorListConcatLists",
    "TensorListElementShape",
    "TensorListLength",
    "TensorListPushBackBatch",
):
    not_differentiable(_op)
