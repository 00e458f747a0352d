"""Multinomial(total_count, logits= | probs=) and DirichletMultinomial(total_count,
concentration): counts over the last axis that sum to total_count."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution, util
from tfcluster.lib.distributions.dirichlet import _covariance_from
from tfcluster.ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    functional_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    random_sampling_ops,
    special_math_ops,
)


def _checked_counts(
    counts: Tensor, total_count: Tensor, validate_args: bool, message: str
) -> Tensor:
    if not validate_args:
        return counts
    counts = util.embed_check_nonnegative_integer_form(counts)
    check = check_ops.assert_equal(total_count, math_ops.reduce_sum(counts, -1), message=message)
    return control_flow_ops.with_dependencies([check], counts)


class Multinomial(distribution.Distribution):
    def __init__(
        self,
        total_count: Any,
        logits: Any = None,
        probs: Any = None,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Multinomial",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(self._total_count)
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits,
                probs=probs,
                multidimensional=True,
                validate_args=validate_args,
                name=name,
            )
            self._mean_val = self._total_count[..., None] * self._probs
        super().__init__(
            dtype=self._probs.dtype,
            reparameterization_type=distribution.NOT_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._total_count, self._logits, self._probs],
            name=name,
        )

    @property
    def total_count(self) -> Tensor:
        return self._total_count

    @property
    def logits(self) -> Tensor:
        return self._logits

    @property
    def probs(self) -> Tensor:
        return self._probs

    def _batch_shape_tensor(self) -> Tensor:
        return array_ops.shape(self._mean_val)[:-1]

    def _batch_shape(self) -> TensorShape:
        return self._mean_val.shape.with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self) -> Tensor:
        return array_ops.shape(self._mean_val)[-1:]

    def _event_shape(self) -> TensorShape:
        return self._mean_val.shape.with_rank_at_least(1)[-1:]

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        # Every batch member may ask for a different number of draws: one Multinomial op
        # per member, under map_fn, as TF does.
        n_draws = array_ops.ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = array_ops.ones_like(n_draws[..., None], dtype=self.logits.dtype) * self.logits
        flat_logits = array_ops.reshape(logits, [-1, k])
        flat_ndraws = n * array_ops.reshape(n_draws, [-1])

        def _sample_single(args: Any) -> Tensor:
            member_logits, n_draw = args[0], args[1]
            internal_deprecations.called_internally(internal_deprecations.MULTINOMIAL)
            x = random_sampling_ops.multinomial(member_logits[None, ...], n_draw, seed)
            x = array_ops.reshape(x, shape=[n, -1])
            return math_ops.reduce_sum(array_ops.one_hot(x, depth=k), axis=-2)

        x = functional_ops.map_fn(_sample_single, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = array_ops.transpose(x, perm=[1, 0, 2])
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return array_ops.reshape(x, final_shape)

    def _log_prob(self, counts: Tensor) -> Tensor:
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts: Tensor) -> Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        return math_ops.reduce_sum(counts * nn_ops.log_softmax(self.logits), -1)

    def _log_normalization(self, counts: Tensor) -> Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        return -util.log_combinations(self.total_count, counts)

    def _mean(self) -> Tensor:
        return array_ops.identity(self._mean_val)

    def _covariance(self) -> Tensor:
        p = self.probs * array_ops.ones_like(self.total_count)[..., None]
        outer = math_ops.matmul(self._mean_val[..., None], p[..., None, :])
        return linalg_ops.matrix_set_diag(-outer, self._variance())

    def _variance(self) -> Tensor:
        p = self.probs * array_ops.ones_like(self.total_count)[..., None]
        return self._mean_val - self._mean_val * p

    def _maybe_assert_valid_sample(self, counts: Tensor) -> Tensor:
        return _checked_counts(
            counts,
            self.total_count,
            self.validate_args,
            "counts must sum to `self.total_count`",
        )


class DirichletMultinomial(distribution.Distribution):
    def __init__(
        self,
        total_count: Any,
        concentration: Any,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "DirichletMultinomial",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[total_count, concentration]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(self._total_count)
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args
            )
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(
            dtype=self._concentration.dtype,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            reparameterization_type=distribution.NOT_REPARAMETERIZED,
            parameters=parameters,
            graph_parents=[self._total_count, self._concentration],
            name=name,
        )

    @property
    def total_count(self) -> Tensor:
        return self._total_count

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
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        gammas = random_sampling_ops.random_gamma(
            shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed
        )
        unnormalized_logits = array_ops.reshape(math_ops.log(gammas), shape=[-1, k])
        internal_deprecations.called_internally(internal_deprecations.MULTINOMIAL)
        draws = random_sampling_ops.multinomial(
            logits=unnormalized_logits,
            num_samples=n_draws,
            seed=util.gen_new_seed(seed, salt="dirichlet_multinomial"),
        )
        x = math_ops.reduce_sum(array_ops.one_hot(draws, depth=k), -2)
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return math_ops.cast(array_ops.reshape(x, final_shape), self.dtype)

    def _log_prob(self, counts: Tensor) -> Tensor:
        counts = self._maybe_assert_valid_sample(counts)
        ordered_prob = special_math_ops.lbeta(self.concentration + counts) - special_math_ops.lbeta(
            self.concentration
        )
        return ordered_prob + util.log_combinations(self.total_count, counts)

    def _prob(self, counts: Tensor) -> Tensor:
        return math_ops.exp(self._log_prob(counts))

    def _mean(self) -> Tensor:
        return self.total_count * (self.concentration / self.total_concentration[..., None])

    def _covariance(self) -> Tensor:
        return _covariance_from(self._variance_scale_term() * self._mean(), self._variance)

    def _variance(self) -> Tensor:
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (self.total_count * scale - x)

    def _variance_scale_term(self) -> Tensor:
        c0 = self.total_concentration[..., None]
        return math_ops.sqrt((1.0 + c0 / self.total_count) / (1.0 + c0))

    def _maybe_assert_valid_concentration(
        self, concentration: Tensor, validate_args: bool
    ) -> Tensor:
        if not validate_args:
            return concentration
        concentration = util.embed_check_categorical_event_shape(concentration)
        check = check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive."
        )
        return control_flow_ops.with_dependencies([check], concentration)

    def _maybe_assert_valid_sample(self, counts: Tensor) -> Tensor:
        return _checked_counts(
            counts,
            self.total_count,
            self.validate_args,
            "counts last-dimension must sum to `self.total_count`",
        )
