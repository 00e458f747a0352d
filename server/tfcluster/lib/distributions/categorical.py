"""Categorical(logits= | probs=): class indices over the last axis of the parameters."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import distribution, util
from tfcluster.lib.distributions.kullback_leibler import RegisterKL
from tfcluster.ops import array_ops, math_ops, nn_ops, random_sampling_ops
from tfcluster.ops.constant_op import constant


def _broadcast_cat_event_and_params(
    event: Tensor, params: Tensor, base_dtype: dtypes.DType
) -> tuple[Tensor, Tensor]:
    """Event and params broadcast against each other (params keep their class axis)."""
    if event.dtype.is_integer:
        pass
    elif event.dtype.is_floating:
        event = math_ops.cast(event, dtype=dtypes.int32)
    else:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    known = (
        params.shape.ndims is not None
        and params.shape[:-1].is_fully_defined()
        and event.shape.is_fully_defined()
    )
    if not known or params.shape[:-1] != event.shape:
        params = params * array_ops.ones_like(event[..., None], dtype=params.dtype)
        params_shape = array_ops.shape(params)[:-1]
        event = event * array_ops.ones(params_shape, dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(TensorShape(params.shape[:-1]))
    return event, params


class Categorical(distribution.Distribution):
    def __init__(
        self,
        logits: Any = None,
        probs: Any = None,
        dtype: Any = dtypes.int32,
        validate_args: bool = False,
        allow_nan_stats: bool = True,
        name: str = "Categorical",
    ) -> None:
        parameters = dict(locals())
        with name_scope(name, values=[logits, probs]) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits,
                probs=probs,
                validate_args=validate_args,
                multidimensional=True,
                name=name,
            )
            if validate_args:
                self._logits = util.embed_check_categorical_event_shape(self._logits)
            static = self._logits.shape.with_rank_at_least(1)
            if static.ndims is not None:
                self._batch_rank = convert_to_tensor(
                    static.ndims - 1, dtype=dtypes.int32, name="batch_rank"
                )
            else:
                with name_scope("batch_rank"):
                    self._batch_rank = array_ops.rank(self._logits) - 1
            logits_shape = array_ops.shape(self._logits, name="logits_shape")
            last = static.dims[-1].value if static.dims is not None else None
            if last is not None:
                self._event_size = convert_to_tensor(last, dtype=dtypes.int32, name="event_size")
            else:
                with name_scope("event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if static[:-1].is_fully_defined():
                self._batch_shape_val = constant(
                    static[:-1].as_list(), dtype=dtypes.int32, name="batch_shape"
                )
            else:
                with name_scope("batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(
            dtype=dtypes.as_dtype(dtype),
            reparameterization_type=distribution.NOT_REPARAMETERIZED,
            validate_args=validate_args,
            allow_nan_stats=allow_nan_stats,
            parameters=parameters,
            graph_parents=[self._logits, self._probs],
            name=name,
        )

    @property
    def event_size(self) -> Tensor:
        return self._event_size

    @property
    def logits(self) -> Tensor:
        return self._logits

    @property
    def probs(self) -> Tensor:
        return self._probs

    def _batch_shape_tensor(self) -> Tensor:
        return array_ops.identity(self._batch_shape_val)

    def _batch_shape(self) -> TensorShape:
        return self.logits.shape[:-1]

    def _event_shape_tensor(self) -> Tensor:
        return constant([], dtype=dtypes.int32)

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        if self.logits.shape.ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = array_ops.reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        internal_deprecations.called_internally(internal_deprecations.MULTINOMIAL)
        draws = random_sampling_ops.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = array_ops.reshape(
            array_ops.transpose(draws), array_ops.concat([[n], self.batch_shape_tensor()], 0)
        )
        return math_ops.cast(draws, self.dtype)

    def _cdf(self, k: Tensor) -> Tensor:
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, probs = _broadcast_cat_event_and_params(k, self.probs, base_dtype=self.dtype.base_dtype)
        flat_probs = array_ops.reshape(probs, (-1, self._event_size))
        flat_k = array_ops.reshape(k, [-1])
        below_k = array_ops.where(
            array_ops.sequence_mask(flat_k, self._event_size),
            flat_probs,
            array_ops.zeros_like(flat_probs),
        )
        return array_ops.reshape(math_ops.reduce_sum(below_k, axis=-1), array_ops.shape(k))

    def _log_prob(self, k: Tensor) -> Tensor:
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, logits = _broadcast_cat_event_and_params(
            k, self.logits, base_dtype=self.dtype.base_dtype
        )
        return -nn_ops.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self) -> Tensor:
        return -math_ops.reduce_sum(nn_ops.log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self) -> Tensor:
        ret = math_ops.cast(math_ops.argmax(self.logits, axis=self._batch_rank), self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a: Categorical, b: Categorical, name: str | None = None) -> Tensor:
    with name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta_log_probs1 = nn_ops.log_softmax(a.logits) - nn_ops.log_softmax(b.logits)
        return math_ops.reduce_sum(nn_ops.softmax(a.logits) * delta_log_probs1, axis=-1)
