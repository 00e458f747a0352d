"""Normal(loc, scale) and the KL divergence between two of them."""

from __future__ import annotations

import math
from typing import Any

from tfcluster.framework.graph import Tensor, control_dependencies, name_scope
from tfcluster.lib.distributions import distribution, special_math
from tfcluster.lib.distributions.kullback_leibler import RegisterKL
from tfcluster.lib.distributions.loc_scale import LocScale
from tfcluster.ops import array_ops, check_ops, math_ops, random_ops
from tfcluster.ops.constant_op import constant


class Normal(LocScale):
    """The normal (Gaussian) distribution; samples are loc + scale * N(0, 1), so gradients
    flow to both parameters."""

    def __init__(
        self,
        loc: Any,
        scale: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Normal",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            checks = [check_ops.assert_positive(scale)] if validate_args else []
            with control_dependencies(checks):
                self._loc = array_ops.identity(loc, name="loc")
                self._scale = array_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype([self._loc, self._scale])
        super().__init__(
            dtype=self._scale.dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._loc, self._scale],
            name=name,
        )

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        sampled = random_ops.random_normal(
            shape=shape, mean=0.0, stddev=1.0, dtype=self.loc.dtype, seed=seed
        )
        return sampled * self.scale + self.loc

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_cdf(self, x: Tensor) -> Tensor:
        return special_math.log_ndtr(self._z(x))

    def _cdf(self, x: Tensor) -> Tensor:
        return special_math.ndtr(self._z(x))

    def _log_survival_function(self, x: Tensor) -> Tensor:
        return special_math.log_ndtr(-self._z(x))

    def _survival_function(self, x: Tensor) -> Tensor:
        return special_math.ndtr(-self._z(x))

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        return -0.5 * math_ops.square(self._z(x))

    def _log_normalization(self) -> Tensor:
        return 0.5 * math.log(2.0 * math.pi) + math_ops.log(self.scale)

    def _entropy(self) -> Tensor:
        scale = self.scale * array_ops.ones_like(self.loc)
        return 0.5 * math.log(2.0 * math.pi * math.e) + math_ops.log(scale)

    def _mean(self) -> Tensor:
        return self.loc * array_ops.ones_like(self.scale)

    def _quantile(self, p: Tensor) -> Tensor:
        return self._inv_z(special_math.ndtri(p))

    def _stddev(self) -> Tensor:
        return self.scale * array_ops.ones_like(self.loc)

    def _mode(self) -> Tensor:
        return self._mean()

    def _z(self, x: Tensor) -> Tensor:
        with name_scope("standardize", values=[x]):
            return (x - self.loc) / self.scale

    def _inv_z(self, z: Tensor) -> Tensor:
        with name_scope("reconstruct", values=[z]):
            return z * self.scale + self.loc


@RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a: Normal, n_b: Normal, name: str | None = None) -> Tensor:
    with name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        one = constant(1, dtype=n_a.dtype)
        two = constant(2, dtype=n_a.dtype)
        half = constant(0.5, dtype=n_a.dtype)
        s_a_squared = math_ops.square(n_a.scale)
        s_b_squared = math_ops.square(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return math_ops.squared_difference(n_a.loc, n_b.loc) / (two * s_b_squared) + half * (
            ratio - one - math_ops.log(ratio)
        )
