"""Uniform(low, high): samples low + (high - low) * U[0, 1)."""

from __future__ import annotations

import math
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution
from tfcluster.ops import array_ops, broadcast_ops, check_ops, math_ops, random_ops
from tfcluster.ops.constant_op import constant


class Uniform(distribution.Distribution):
    def __init__(
        self,
        low: Any = 0.0,
        high: Any = 1.0,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Uniform",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as name:
            checks = (
                [check_ops.assert_less(low, high, message="uniform not defined when low >= high.")]
                if validate_args
                else []
            )
            with control_dependencies(checks):
                self._low = array_ops.identity(low, name="low")
                self._high = array_ops.identity(high, name="high")
                check_ops.assert_same_float_dtype([self._low, self._high])
        super().__init__(
            dtype=self._low.dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._low, self._high],
            name=name,
        )

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"low": shape, "high": shape}

    @property
    def low(self) -> Tensor:
        return self._low

    @property
    def high(self) -> Tensor:
        return self._high

    def range(self, name: str = "range") -> Tensor:
        """high - low."""
        with self._name_scope(name):
            return self.high - self.low

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_ops.broadcast_dynamic_shape(
            array_ops.shape(self.low), array_ops.shape(self.high)
        )

    def _batch_shape(self) -> TensorShape:
        return broadcast_ops.broadcast_static_shape(self.low.shape, self.high.shape)

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        samples = random_ops.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x: Tensor) -> Tensor:
        broadcasted_x = x * array_ops.ones(self.batch_shape_tensor(), dtype=x.dtype)
        is_nan = math_ops.is_nan(broadcasted_x)
        outside = math_ops.logical_or(broadcasted_x < self.low, broadcasted_x >= self.high)
        density = array_ops.where_v2(
            outside,
            array_ops.zeros_like(broadcasted_x),
            array_ops.ones_like(broadcasted_x) / self.range(),
        )
        return array_ops.where_v2(is_nan, broadcasted_x, density)

    def _cdf(self, x: Tensor) -> Tensor:
        broadcast_shape = broadcast_ops.broadcast_dynamic_shape(
            array_ops.shape(x), self.batch_shape_tensor()
        )
        zeros = array_ops.zeros(broadcast_shape, dtype=self.dtype)
        ones = array_ops.ones(broadcast_shape, dtype=self.dtype)
        broadcasted_x = x * ones
        below_high = array_ops.where_v2(
            x < self.low, zeros, (broadcasted_x - self.low) / self.range()
        )
        return array_ops.where_v2(x >= self.high, ones, below_high)

    def _entropy(self) -> Tensor:
        return math_ops.log(self.range())

    def _mean(self) -> Tensor:
        return (self.low + self.high) / 2.0

    def _variance(self) -> Tensor:
        return math_ops.square(self.range()) / 12.0

    def _stddev(self) -> Tensor:
        return self.range() / math.sqrt(12.0)
