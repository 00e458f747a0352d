"""Beta(concentration1, concentration0) and KL(Beta || Beta). Samples are g1 / (g1 + g0)
of two Gamma draws, differentiable through RandomGamma's implicit gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution, util
from tfcluster.lib.distributions.kullback_leibler import RegisterKL
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    math_ops,
    random_sampling_ops,
    special_math_ops,
)
from tfcluster.ops.constant_op import constant


class Beta(distribution.Distribution):
    def __init__(
        self,
        concentration1: Any = None,
        concentration0: Any = None,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Beta",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args
            )
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args
            )
            check_ops.assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(
            dtype=self._total_concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._concentration1, self._concentration0, self._total_concentration],
            name=name,
        )

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"concentration1": shape, "concentration0": shape}

    @property
    def concentration1(self) -> Tensor:
        return self._concentration1

    @property
    def concentration0(self) -> Tensor:
        return self._concentration0

    @property
    def total_concentration(self) -> Tensor:
        return self._total_concentration

    def _batch_shape_tensor(self) -> Tensor:
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self) -> TensorShape:
        return self.total_concentration.shape

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        # Both broadcasts before either draw, each its own ones_like: TF's op order, which
        # fixes the graph-derived seeds of later unseeded ops.
        c1 = array_ops.ones_like(self.total_concentration, dtype=self.dtype) * self.concentration1
        c0 = array_ops.ones_like(self.total_concentration, dtype=self.dtype) * self.concentration0
        gamma1 = random_sampling_ops.random_gamma(shape=[n], alpha=c1, dtype=self.dtype, seed=seed)
        gamma2 = random_sampling_ops.random_gamma(
            shape=[n], alpha=c0, dtype=self.dtype, seed=util.gen_new_seed(seed, "beta")
        )
        return gamma1 / (gamma1 + gamma2)

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Tensor) -> Tensor:
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x: Tensor) -> Tensor:
        return math_ops.log(self._cdf(x))

    def _cdf(self, x: Tensor) -> Tensor:
        return special_math_ops.betainc(self.concentration1, self.concentration0, x)

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return special_math_ops.xlogy(self.concentration1 - 1.0, x) + (
            self.concentration0 - 1.0
        ) * math_ops.log1p(-x)

    def _log_normalization(self) -> Tensor:
        return (
            special_math_ops.lgamma(self.concentration1)
            + special_math_ops.lgamma(self.concentration0)
            - special_math_ops.lgamma(self.total_concentration)
        )

    def _entropy(self) -> Tensor:
        digamma = special_math_ops.digamma
        return (
            self._log_normalization()
            - (self.concentration1 - 1.0) * digamma(self.concentration1)
            - (self.concentration0 - 1.0) * digamma(self.concentration0)
            + (self.total_concentration - 2.0) * digamma(self.total_concentration)
        )

    def _mean(self) -> Tensor:
        return self._concentration1 / self._total_concentration

    def _variance(self) -> Tensor:
        return self._mean() * (1.0 - self._mean()) / (1.0 + self.total_concentration)

    def _mode(self) -> Tensor:
        """Undefined (NaN, or an error when allow_nan_stats is False) where either
        concentration is <= 1."""
        mode = (self.concentration1 - 1.0) / (self.total_concentration - 2.0)
        if self.allow_nan_stats:
            nan = array_ops.fill(
                self.batch_shape_tensor(),
                np.array(np.nan, dtype=self.dtype.as_numpy_dtype),
                name="nan",
            )
            is_defined = math_ops.logical_and(self.concentration1 > 1.0, self.concentration0 > 1.0)
            return array_ops.where_v2(is_defined, mode, nan)
        one = array_ops.ones([], dtype=self.dtype)
        checks = [
            check_ops.assert_less(
                one, self.concentration1, message="Mode undefined for concentration1 <= 1."
            ),
            check_ops.assert_less(
                one, self.concentration0, message="Mode undefined for concentration0 <= 1."
            ),
        ]
        return control_flow_ops.with_dependencies(checks, mode)

    def _maybe_assert_valid_concentration(
        self, concentration: Tensor, validate_args: bool
    ) -> Tensor:
        if not validate_args:
            return concentration
        check = check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive."
        )
        return control_flow_ops.with_dependencies([check], concentration)

    def _maybe_assert_valid_sample(self, x: Tensor) -> Tensor:
        if not self.validate_args:
            return x
        checks = [
            check_ops.assert_positive(x, message="sample must be positive"),
            check_ops.assert_less(
                x, array_ops.ones([], self.dtype), message="sample must be less than `1`."
            ),
        ]
        return control_flow_ops.with_dependencies(checks, x)


@RegisterKL(Beta, Beta)
def _kl_beta_beta(d1: Beta, d2: Beta, name: str | None = None) -> Tensor:
    values = [
        d1.concentration1,
        d1.concentration0,
        d1.total_concentration,
        d2.concentration1,
        d2.concentration0,
        d2.total_concentration,
    ]
    with name_scope(name, "kl_beta_beta", values=values):
        digamma = special_math_ops.digamma
        return (
            (d2._log_normalization() - d1._log_normalization())
            - digamma(d1.concentration1) * (d2.concentration1 - d1.concentration1)
            - digamma(d1.concentration0) * (d2.concentration0 - d1.concentration0)
            + digamma(d1.total_concentration) * (d2.total_concentration - d1.total_concentration)
        )
