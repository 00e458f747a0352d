"""StudentT(df, loc, scale): samples are loc + scale * N / sqrt(G / df), G ~ Gamma(df/2, 1/2)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution, util
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


class StudentT(distribution.Distribution):
    def __init__(
        self,
        df: Any,
        loc: Any,
        scale: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "StudentT",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[df, loc, scale]) as name:
            checks = [check_ops.assert_positive(df)] if validate_args else []
            with control_dependencies(checks):
                self._df = array_ops.identity(df, name="df")
                self._loc = array_ops.identity(loc, name="loc")
                self._scale = array_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype((self._df, self._loc, self._scale))
        super().__init__(
            dtype=self._scale.dtype,
            reparameterization_type=distribution.FULLY_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._df, self._loc, self._scale],
            name=name,
        )

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        shape = convert_to_tensor(sample_shape, dtype=dtypes.int32)
        return {"df": shape, "loc": shape, "scale": shape}

    @property
    def df(self) -> Tensor:
        return self._df

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _batch_shape_tensor(self) -> Tensor:
        return broadcast_ops.broadcast_dynamic_shape(
            array_ops.shape(self.df),
            broadcast_ops.broadcast_dynamic_shape(
                array_ops.shape(self.loc), array_ops.shape(self.scale)
            ),
        )

    def _batch_shape(self) -> TensorShape:
        return broadcast_ops.broadcast_static_shape(
            broadcast_ops.broadcast_static_shape(self.df.shape, self.loc.shape), self.scale.shape
        )

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _ones(self) -> Tensor:
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _fill(self, value: float, name: str) -> Tensor:
        return array_ops.fill(
            self.batch_shape_tensor(), np.array(value, dtype=self.dtype.as_numpy_dtype), name=name
        )

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        normal_sample = random_ops.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self.df * self._ones()
        gamma_sample = random_sampling_ops.random_gamma(
            [n],
            0.5 * df,
            beta=0.5,
            dtype=self.dtype,
            seed=util.gen_new_seed(seed, salt="student_t"),
        )
        samples = normal_sample * math_ops.rsqrt(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_prob(self, x: Tensor) -> Tensor:
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x: Tensor) -> Tensor:
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * math_ops.log1p(y**2.0 / self.df)

    def _log_normalization(self) -> Tensor:
        lgamma = special_math_ops.lgamma
        return (
            math_ops.log(math_ops.abs(self.scale))
            + 0.5 * math_ops.log(self.df)
            + 0.5 * np.log(np.pi)
            + lgamma(0.5 * self.df)
            - lgamma(0.5 * (self.df + 1.0))
        )

    def _cdf(self, x: Tensor) -> Tensor:
        y = (x - self.loc) / math_ops.abs(self.scale)
        x_t = self.df / (y**2.0 + self.df)
        neg_cdf = 0.5 * special_math_ops.betainc(0.5 * self.df, 0.5, x_t)
        return array_ops.where_v2(math_ops.less(y, 0.0), neg_cdf, 1.0 - neg_cdf)

    def _entropy(self) -> Tensor:
        v = self._ones()[..., None]
        u = v * self.df[..., None]
        beta_arg = array_ops.concat([u, v], -1) / 2.0
        digamma = special_math_ops.digamma
        return (
            math_ops.log(math_ops.abs(self.scale))
            + 0.5 * math_ops.log(self.df)
            + special_math_ops.lbeta(beta_arg)
            + 0.5 * (self.df + 1.0) * (digamma(0.5 * (self.df + 1.0)) - digamma(0.5 * self.df))
        )

    def _mean(self) -> Tensor:
        """loc where df > 1; NaN (or an error when allow_nan_stats is False) elsewhere."""
        mean = self.loc * self._ones()
        if self.allow_nan_stats:
            return array_ops.where_v2(
                math_ops.greater(self.df, self._ones()), mean, self._fill(np.nan, "nan")
            )
        check = check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype),
            self.df,
            message="mean not defined for components of df <= 1",
        )
        return control_flow_ops.with_dependencies([check], mean)

    def _variance(self) -> Tensor:
        """scale^2 df / (df - 2) for df > 2, infinity for 1 < df <= 2, NaN for df <= 1."""
        denom = array_ops.where_v2(
            math_ops.greater(self.df, 2.0), self.df - 2.0, array_ops.ones_like(self.df)
        )
        var = self._ones() * math_ops.square(self.scale) * self.df / denom
        defined = array_ops.where_v2(
            self.df > array_ops.fill(self.batch_shape_tensor(), 2.0),
            var,
            self._fill(np.inf, "inf"),
        )
        if self.allow_nan_stats:
            return array_ops.where_v2(
                math_ops.greater(self.df, self._ones()), defined, self._fill(np.nan, "nan")
            )
        check = check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype),
            self.df,
            message="variance not defined for components of df <= 1",
        )
        return control_flow_ops.with_dependencies([check], defined)

    def _mode(self) -> Tensor:
        return array_ops.identity(self.loc)
