"""Laplace(loc, scale): samples by inverting the cdf of a uniform draw in (-1, 1)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.framework.graph import Tensor, control_dependencies, name_scope
from tfcluster.lib.distributions import distribution, special_math
from tfcluster.lib.distributions.loc_scale import LocScale
from tfcluster.ops import array_ops, check_ops, math_ops, random_ops


class Laplace(LocScale):
    def __init__(
        self,
        loc: Any,
        scale: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Laplace",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(scale)] if validate_args else []):
                self._loc = array_ops.identity(loc, name="loc")
                self._scale = array_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype([self._loc, self._scale])
            super().__init__(
                dtype=self._loc.dtype,
                reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                validate_args=validate_args,
                allow_nan_stats=allow_nan_stats,
                parameters=parameters,
                graph_parents=[self._loc, self._scale],
                name=name,
            )

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        npdt = self.dtype.as_numpy_dtype
        # (-1, 1) open at -1 so that log1p(-|u|) stays finite.
        u = random_ops.random_uniform(
            shape=shape,
            minval=np.nextafter(npdt(-1.0), npdt(0.0)),
            maxval=1.0,
            dtype=self.dtype,
            seed=seed,
        )
        return self.loc - self.scale * math_ops.sign(u) * math_ops.log1p(-math_ops.abs(u))

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Tensor) -> Tensor:
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x: Tensor) -> Tensor:
        return special_math.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x: Tensor) -> Tensor:
        return special_math.log_cdf_laplace(-self._z(x))

    def _cdf(self, x: Tensor) -> Tensor:
        z = self._z(x)
        return 0.5 + 0.5 * math_ops.sign(z) * (1.0 - math_ops.exp(-math_ops.abs(z)))

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        return -math_ops.abs(self._z(x))

    def _log_normalization(self) -> Tensor:
        return math.log(2.0) + math_ops.log(self.scale)

    def _entropy(self) -> Tensor:
        scale = self.scale + array_ops.zeros_like(self.loc)
        return math.log(2.0) + 1.0 + math_ops.log(scale)

    def _mean(self) -> Tensor:
        return self.loc + array_ops.zeros_like(self.scale)

    def _stddev(self) -> Tensor:
        return math.sqrt(2.0) * self.scale + array_ops.zeros_like(self.loc)

    def _median(self) -> Tensor:
        return self._mean()

    def _mode(self) -> Tensor:
        return self._mean()

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale
