"""Bernoulli(logits= | probs=): 0/1 events of an integer (or any) dtype."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution, util
from tfcluster.lib.distributions.kullback_leibler import RegisterKL
from tfcluster.ops import array_ops, math_ops, nn_ops, random_ops
from tfcluster.ops.constant_op import constant


class Bernoulli(distribution.Distribution):
    def __init__(
        self,
        logits: Any = None,
        probs: Any = None,
        dtype: Any = dtypes.int32,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Bernoulli",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args, name=name
            )
        super().__init__(
            dtype=dtypes.as_dtype(dtype),
            reparameterization_type=distribution.NOT_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._logits, self._probs],
            name=name,
        )

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        return {"logits": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def logits(self) -> Tensor:
        return self._logits

    @property
    def probs(self) -> Tensor:
        return self._probs

    def _batch_shape_tensor(self) -> Tensor:
        return array_ops.shape(self._logits)

    def _batch_shape(self) -> TensorShape:
        return self._logits.shape

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        new_shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        uniform = random_ops.random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        return math_ops.cast(math_ops.less(uniform, self.probs), self.dtype)

    def _log_prob(self, event: Tensor) -> Tensor:
        if self.validate_args:
            event = util.embed_check_integer_casting_closed(event, target_dtype=dtypes.bool_)
        event = math_ops.cast(event, self.logits.dtype)
        logits = self.logits
        same_static = (
            event.shape.is_fully_defined()
            and logits.shape.is_fully_defined()
            and event.shape == logits.shape
        )
        if not same_static:
            logits, event = (
                array_ops.ones_like(event) * logits,
                array_ops.ones_like(logits) * event,
            )
        return -nn_ops.sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self) -> Tensor:
        return -self.logits * (math_ops.sigmoid(self.logits) - 1) + nn_ops.softplus(-self.logits)

    def _mean(self) -> Tensor:
        return array_ops.identity(self.probs)

    def _variance(self) -> Tensor:
        return self._mean() * (1.0 - self.probs)

    def _mode(self) -> Tensor:
        """1 where probs > 0.5, else 0."""
        return math_ops.cast(self.probs > 0.5, self.dtype)


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a: Bernoulli, b: Bernoulli, name: str | None = None) -> Tensor:
    with name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = nn_ops.softplus(-b.logits) - nn_ops.softplus(-a.logits)
        delta_probs1 = nn_ops.softplus(b.logits) - nn_ops.softplus(a.logits)
        return (
            math_ops.sigmoid(a.logits) * delta_probs0 + math_ops.sigmoid(-a.logits) * delta_probs1
        )
