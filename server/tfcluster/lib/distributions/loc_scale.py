"""What the scalar location-scale distributions (Normal, Laplace) share: their two parameters
and the batch and event shapes those give (a scalar event, the parameters' broadcast batch)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution
from tfcluster.ops import array_ops, broadcast_ops
from tfcluster.ops.constant_op import constant


class LocScale(distribution.Distribution):
    """A distribution whose subclass's __init__ sets ``_loc`` and ``_scale`` (in TF's op order
    for its own name scope) before calling Distribution's."""

    _loc: Tensor
    _scale: Tensor

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"loc": shape, "scale": shape}

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_ops.broadcast_dynamic_shape(
            array_ops.shape(self.loc), array_ops.shape(self.scale)
        )

    def _batch_shape(self) -> TensorShape:
        return broadcast_ops.broadcast_static_shape(self.loc.shape, self.scale.shape)

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])
