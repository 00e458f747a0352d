"""Dirichlet(concentration) over the last axis, and KL(Dirichlet || Dirichlet). Samples are
normalised Gamma draws, differentiable through RandomGamma's implicit gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution
from tfcluster.lib.distributions.kullback_leibler import RegisterKL
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    linalg_ops,
    math_ops,
    random_sampling_ops,
    special_math_ops,
)


def _covariance_from(x: Tensor, variance: Callable[[], Tensor]) -> Tensor:
    """-x x^T off the diagonal, variance() on it (made after the product, as TF does)."""
    outer = math_ops.matmul(x[..., None], x[..., None, :])
    return linalg_ops.matrix_set_diag(-outer, variance())


class Dirichlet(distribution.Distribution):
    def __init__(
        self,
        concentration: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Dirichlet",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[concentration]) as name:
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args
            )
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(
            dtype=self._concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._concentration, self._total_concentration],
            name=name,
        )

    @property
    def concentration(self) -> Tensor:
        return self._concentration

    @property
    def total_concentration(self) -> Tensor:
        return self._total_concentration

    def _batch_shape_tensor(self) -> Tensor:
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self) -> TensorShape:
        return self.total_concentration.shape

    def _event_shape_tensor(self) -> Tensor:
        return array_ops.shape(self.concentration)[-1:]

    def _event_shape(self) -> TensorShape:
        return self.concentration.shape.with_rank_at_least(1)[-1:]

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        gamma_sample = random_sampling_ops.random_gamma(
            shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed
        )
        return gamma_sample / math_ops.reduce_sum(gamma_sample, -1, keepdims=True)

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x: Tensor) -> Tensor:
        return math_ops.exp(self._log_prob(x))

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        x = self._maybe_assert_valid_sample(x)
        return math_ops.reduce_sum(special_math_ops.xlogy(self.concentration - 1.0, x), -1)

    def _log_normalization(self) -> Tensor:
        return special_math_ops.lbeta(self.concentration)

    def _entropy(self) -> Tensor:
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        digamma = special_math_ops.digamma
        return (
            self._log_normalization()
            + (self.total_concentration - k) * digamma(self.total_concentration)
            - math_ops.reduce_sum((self.concentration - 1.0) * digamma(self.concentration), axis=-1)
        )

    def _mean(self) -> Tensor:
        return self.concentration / self.total_concentration[..., None]

    def _covariance(self) -> Tensor:
        return _covariance_from(self._variance_scale_term() * self._mean(), self._variance)

    def _variance(self) -> Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale_term(self) -> Tensor:
        return math_ops.rsqrt(1.0 + self.total_concentration[..., None])

    def _mode(self) -> Tensor:
        """Undefined (NaN, or an error when allow_nan_stats is False) where any
        concentration is <= 1."""
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        mode = (self.concentration - 1.0) / (self.total_concentration[..., None] - k)
        if self.allow_nan_stats:
            nan = array_ops.fill(
                array_ops.shape(mode), np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan"
            )
            defined = math_ops.reduce_all(self.concentration > 1.0, axis=-1)
            return array_ops.where_v2(defined, mode, nan)
        check = check_ops.assert_less(
            array_ops.ones([], self.dtype),
            self.concentration,
            message="Mode undefined when any concentration <= 1",
        )
        return control_flow_ops.with_dependencies([check], mode)

    def _maybe_assert_valid_concentration(
        self, concentration: Tensor, validate_args: bool
    ) -> Tensor:
        if not validate_args:
            return concentration
        checks = [
            check_ops.assert_positive(
                concentration, message="Concentration parameter must be positive."
            ),
            check_ops.assert_rank_at_least(
                concentration, 1, message="Concentration parameter must have >=1 dimensions."
            ),
            check_ops.assert_less(
                1,
                array_ops.shape(concentration)[-1],
                message="Concentration parameter must have event_size >= 2.",
            ),
        ]
        return control_flow_ops.with_dependencies(checks, concentration)

    def _maybe_assert_valid_sample(self, x: Tensor) -> Tensor:
        if not self.validate_args:
            return x
        checks = [
            check_ops.assert_positive(x, message="samples must be positive"),
            check_ops.assert_near(
                array_ops.ones([], dtype=self.dtype),
                math_ops.reduce_sum(x, -1),
                message="sample last-dimension must sum to `1`",
            ),
        ]
        return control_flow_ops.with_dependencies(checks, x)


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1: Dirichlet, d2: Dirichlet, name: str | None = None) -> Tensor:
    with name_scope(name, "kl_dirichlet_dirichlet", values=[d1.concentration, d2.concentration]):
        digamma = special_math_ops.digamma
        digamma_sum_d1 = digamma(math_ops.reduce_sum(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (
            math_ops.reduce_sum(concentration_diff * digamma_diff, axis=-1)
            - special_math_ops.lbeta(d1.concentration)
            + special_math_ops.lbeta(d2.concentration)
        )
