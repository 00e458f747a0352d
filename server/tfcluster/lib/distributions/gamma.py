"""Gamma(concentration, rate), Exponential(rate) = Gamma(1, rate), and KL(Gamma || Gamma).
Gamma samples come from RandomGamma, whose gradient (implicit reparameterisation, as TF
1.15's) makes them differentiable in the concentration; the rate enters as a division."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution
from tfcluster.lib.distributions.kullback_leibler import RegisterKL
from tfcluster.ops import (
    array_ops,
    broadcast_ops,
    check_ops,
    control_flow_ops,
    math_ops,
    random_ops,
    random_sampling_ops,
    special_math_ops,
)
from tfcluster.ops.constant_op import constant


class Gamma(distribution.Distribution):
    def __init__(
        self,
        concentration: Any,
        rate: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Gamma",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[concentration, rate]) as name:
            checks = (
                [check_ops.assert_positive(concentration), check_ops.assert_positive(rate)]
                if validate_args
                else []
            )
            with control_dependencies(checks):
                self._concentration = array_ops.identity(concentration, name="concentration")
                self._rate = array_ops.identity(rate, name="rate")
                check_ops.assert_same_float_dtype([self._concentration, self._rate])
        super().__init__(
            dtype=self._concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._concentration, self._rate],
            name=name,
        )

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"concentration": shape, "rate": shape}

    @property
    def concentration(self) -> Tensor:
        return self._concentration

    @property
    def rate(self) -> Tensor:
        return self._rate

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_ops.broadcast_dynamic_shape(
            array_ops.shape(self.concentration), array_ops.shape(self.rate)
        )

    def _batch_shape(self) -> TensorShape:
        return broadcast_ops.broadcast_static_shape(self.concentration.shape, self.rate.shape)

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        return random_sampling_ops.random_gamma(
            shape=[n], alpha=self.concentration, beta=self.rate, dtype=self.dtype, seed=seed
        )

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return special_math_ops.igamma(self.concentration, self.rate * x)

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return special_math_ops.xlogy(self.concentration - 1.0, x) - self.rate * x

    def _log_normalization(self) -> Tensor:
        return special_math_ops.lgamma(self.concentration) - self.concentration * math_ops.log(
            self.rate
        )

    def _entropy(self) -> Tensor:
        c = self.concentration
        return (
            c
            - math_ops.log(self.rate)
            + special_math_ops.lgamma(c)
            + (1.0 - c) * special_math_ops.digamma(c)
        )

    def _mean(self) -> Tensor:
        return self.concentration / self.rate

    def _variance(self) -> Tensor:
        return self.concentration / math_ops.square(self.rate)

    def _stddev(self) -> Tensor:
        return math_ops.sqrt(self.concentration) / self.rate

    def _mode(self) -> Tensor:
        """(concentration - 1) / rate where concentration > 1; NaN (or an error when
        allow_nan_stats is False) elsewhere."""
        mode = (self.concentration - 1.0) / self.rate
        if self.allow_nan_stats:
            nan = array_ops.fill(
                self.batch_shape_tensor(),
                np.array(np.nan, dtype=self.dtype.as_numpy_dtype),
                name="nan",
            )
            return array_ops.where_v2(self.concentration > 1.0, mode, nan)
        check = check_ops.assert_less(
            array_ops.ones([], self.dtype),
            self.concentration,
            message="mode not defined when any concentration <= 1",
        )
        return control_flow_ops.with_dependencies([check], mode)

    def _maybe_assert_valid_sample(self, x: Tensor) -> Tensor:
        check_ops.assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return control_flow_ops.with_dependencies([check_ops.assert_positive(x)], x)


class Exponential(Gamma):
    """Exponential(rate): Gamma with concentration 1, sampled as -log(U) / rate."""

    def __init__(
        self,
        rate: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Exponential",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(
            concentration=array_ops.ones([], dtype=self._rate.dtype),
            rate=self._rate,
            allow_nan_stats=allow_nan_stats,
            validate_args=validate_args,
            name=name,
        )
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        return {"rate": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def rate(self) -> Tensor:
        return self._rate

    def _log_survival_function(self, value: Tensor) -> Tensor:
        return self._log_prob(value) - math_ops.log(self._rate)

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        shape = array_ops.concat([[n], array_ops.shape(self._rate)], 0)
        # (tiny, 1): log never sees 0.
        sampled = random_ops.random_uniform(
            shape,
            minval=np.finfo(self.dtype.as_numpy_dtype).tiny,
            maxval=1.0,
            seed=seed,
            dtype=self.dtype,
        )
        return -math_ops.log(sampled) / self._rate


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0: Gamma, g1: Gamma, name: str | None = None) -> Tensor:
    values = [g0.concentration, g0.rate, g1.concentration, g1.rate]
    with name_scope(name, "kl_gamma_gamma", values=values):
        return (
            (g0.concentration - g1.concentration) * special_math_ops.digamma(g0.concentration)
            + special_math_ops.lgamma(g1.concentration)
            - special_math_ops.lgamma(g0.concentration)
            + g1.concentration * math_ops.log(g0.rate)
            - g1.concentration * math_ops.log(g1.rate)
            + g0.concentration * (g1.rate / g0.rate - 1.0)
        )
