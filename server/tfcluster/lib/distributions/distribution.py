"""The Distribution base class of tf.distributions: TF 1.15's public methods, name scopes
and sample-shape handling, over the `_method` hooks each distribution implements."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations, tensor_shape, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.distributions import kullback_leibler, util
from tfcluster.ops import array_ops, math_ops


class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters. The two instances
    are module constants, compared by identity as TF does."""

    def __init__(self, rep_type: str) -> None:
        self._rep_type = rep_type

    def __repr__(self) -> str:
        # TF's spelling, typo included.
        return f"<Reparameteriation Type: {self._rep_type}>"

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


class Distribution:
    """A batch of probability distributions. Subclasses implement `_sample_n`, `_log_prob`,
    ... ; the public methods open the name scope `<distribution name>/<method>` first."""

    def __init__(
        self,
        dtype: Any,
        reparameterization_type: ReparameterizationType,
        validate_args: bool,
        allow_nan_stats: bool,
        parameters: dict[str, Any] | None = None,
        graph_parents: list[Any] | None = None,
        name: str | None = None,
    ) -> None:
        internal_deprecations.called_internally(internal_deprecations.DISTRIBUTION, 2)
        graph_parents = [] if graph_parents is None else list(graph_parents)
        for i, t in enumerate(graph_parents):
            if t is None or not isinstance(t, Tensor):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":  # not yet a scope: claim a unique one
            with name_scope(name or type(self).__name__) as scope:
                name = scope
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = parameters or {}
        self._graph_parents = graph_parents
        self._name = name

    @property
    def _parameters(self) -> dict[str, Any]:
        return self._parameter_dict

    @_parameters.setter
    def _parameters(self, value: dict[str, Any]) -> None:
        value = dict(value)
        value.pop("self", None)
        value.pop("__class__", None)
        self._parameter_dict = value

    @classmethod
    def param_shapes(cls, sample_shape: Any, name: str = "DistributionParamShapes") -> Any:
        with name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape: Any) -> dict[str, TensorShape]:
        if isinstance(sample_shape, TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        static: dict[str, TensorShape] = {}
        for key, shape in cls.param_shapes(sample_shape).items():
            value = tensor_util.constant_value(shape)
            if value is None:
                raise ValueError("sample_shape must be a fully-defined TensorShape or list/tuple")
            static[key] = TensorShape([int(d) for d in np.reshape(value, [-1])])
        return static

    @staticmethod
    def _param_shapes(sample_shape: Any) -> dict[str, Tensor]:
        raise NotImplementedError("_param_shapes not implemented")

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def parameters(self) -> dict[str, Any]:
        return {k: v for k, v in self._parameters.items() if not k.startswith("__")}

    @property
    def reparameterization_type(self) -> ReparameterizationType:
        return self._reparameterization_type

    @property
    def allow_nan_stats(self) -> bool:
        return self._allow_nan_stats

    @property
    def validate_args(self) -> bool:
        return self._validate_args

    def copy(self, **override_parameters_kwargs: Any) -> Distribution:
        parameters = dict(self.parameters, **override_parameters_kwargs)
        return type(self)(**parameters)

    # -- shapes --------------------------------------------------------------------------

    def _batch_shape_tensor(self) -> Tensor:
        raise NotImplementedError(f"batch_shape_tensor is not implemented: {type(self).__name__}")

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> Tensor:
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(
                    self.batch_shape.as_list(), dtype=dtypes.int32, name="batch_shape"
                )
            return self._batch_shape_tensor()

    def _batch_shape(self) -> TensorShape:
        return TensorShape(None)

    @property
    def batch_shape(self) -> TensorShape:
        return tensor_shape.as_shape(self._batch_shape())

    def _event_shape_tensor(self) -> Tensor:
        raise NotImplementedError(f"event_shape_tensor is not implemented: {type(self).__name__}")

    def event_shape_tensor(self, name: str = "event_shape_tensor") -> Tensor:
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(
                    self.event_shape.as_list(), dtype=dtypes.int32, name="event_shape"
                )
            return self._event_shape_tensor()

    def _event_shape(self) -> TensorShape:
        return TensorShape(None)

    @property
    def event_shape(self) -> TensorShape:
        return tensor_shape.as_shape(self._event_shape())

    def is_scalar_event(self, name: str = "is_scalar_event") -> Tensor:
        with self._name_scope(name):
            return convert_to_tensor(
                self._is_scalar_helper(self.event_shape, self.event_shape_tensor),
                name="is_scalar_event",
            )

    def is_scalar_batch(self, name: str = "is_scalar_batch") -> Tensor:
        with self._name_scope(name):
            return convert_to_tensor(
                self._is_scalar_helper(self.batch_shape, self.batch_shape_tensor),
                name="is_scalar_batch",
            )

    # -- sampling ------------------------------------------------------------------------

    def _sample_n(self, n: Any, seed: int | None = None) -> Tensor:
        raise NotImplementedError(f"sample_n is not implemented: {type(self).__name__}")

    def sample(
        self, sample_shape: Any = (), seed: int | None = None, name: str = "sample"
    ) -> Tensor:
        with self._name_scope(name, values=[sample_shape]):
            shape_t = convert_to_tensor(sample_shape, dtype=dtypes.int32, name="sample_shape")
            shape_t, n = self._expand_sample_shape_to_vector(shape_t, "sample_shape")
            samples = self._sample_n(n, seed)
            batch_event_shape = array_ops.shape(samples)[1:]
            final_shape = array_ops.concat([shape_t, batch_event_shape], 0)
            samples = array_ops.reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, shape_t)

    # -- densities: each falls back on its sibling, as TF's does ---------------------------

    def _value(self, value: Any) -> Tensor:
        return convert_to_tensor(value, name="value", preferred_dtype=self.dtype)

    def _call(self, name: str, value: Any, first: str, fallback: Any) -> Tensor:
        with self._name_scope(name, values=[value]):
            v = self._value(value)
            try:
                return getattr(self, first)(v)
            except NotImplementedError as original:
                try:
                    return fallback(v)
                except NotImplementedError:
                    raise original from None

    def _log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"log_prob is not implemented: {type(self).__name__}")

    def log_prob(self, value: Any, name: str = "log_prob") -> Tensor:
        return self._call(name, value, "_log_prob", lambda v: math_ops.log(self._prob(v)))

    def _prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"prob is not implemented: {type(self).__name__}")

    def prob(self, value: Any, name: str = "prob") -> Tensor:
        return self._call(name, value, "_prob", lambda v: math_ops.exp(self._log_prob(v)))

    def _log_cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"log_cdf is not implemented: {type(self).__name__}")

    def log_cdf(self, value: Any, name: str = "log_cdf") -> Tensor:
        return self._call(name, value, "_log_cdf", lambda v: math_ops.log(self._cdf(v)))

    def _cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"cdf is not implemented: {type(self).__name__}")

    def cdf(self, value: Any, name: str = "cdf") -> Tensor:
        return self._call(name, value, "_cdf", lambda v: math_ops.exp(self._log_cdf(v)))

    def _log_survival_function(self, value: Tensor) -> Tensor:
        raise NotImplementedError(
            f"log_survival_function is not implemented: {type(self).__name__}"
        )

    def log_survival_function(self, value: Any, name: str = "log_survival_function") -> Tensor:
        return self._call(
            name, value, "_log_survival_function", lambda v: math_ops.log1p(-self.cdf(v))
        )

    def _survival_function(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"survival_function is not implemented: {type(self).__name__}")

    def survival_function(self, value: Any, name: str = "survival_function") -> Tensor:
        return self._call(name, value, "_survival_function", lambda v: 1.0 - self.cdf(v))

    def _quantile(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"quantile is not implemented: {type(self).__name__}")

    def quantile(self, value: Any, name: str = "quantile") -> Tensor:
        with self._name_scope(name, values=[value]):
            return self._quantile(self._value(value))

    # -- statistics ----------------------------------------------------------------------

    def _entropy(self) -> Tensor:
        raise NotImplementedError(f"entropy is not implemented: {type(self).__name__}")

    def entropy(self, name: str = "entropy") -> Tensor:
        with self._name_scope(name):
            return self._entropy()

    def _mean(self) -> Tensor:
        raise NotImplementedError(f"mean is not implemented: {type(self).__name__}")

    def mean(self, name: str = "mean") -> Tensor:
        with self._name_scope(name):
            return self._mean()

    def _variance(self) -> Tensor:
        raise NotImplementedError(f"variance is not implemented: {type(self).__name__}")

    def variance(self, name: str = "variance") -> Tensor:
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original:
                try:
                    return math_ops.square(self._stddev())
                except NotImplementedError:
                    raise original from None

    def _stddev(self) -> Tensor:
        raise NotImplementedError(f"stddev is not implemented: {type(self).__name__}")

    def stddev(self, name: str = "stddev") -> Tensor:
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original:
                try:
                    return math_ops.sqrt(self._variance())
                except NotImplementedError:
                    raise original from None

    def _covariance(self) -> Tensor:
        raise NotImplementedError(f"covariance is not implemented: {type(self).__name__}")

    def covariance(self, name: str = "covariance") -> Tensor:
        with self._name_scope(name):
            return self._covariance()

    def _mode(self) -> Tensor:
        raise NotImplementedError(f"mode is not implemented: {type(self).__name__}")

    def mode(self, name: str = "mode") -> Tensor:
        with self._name_scope(name):
            return self._mode()

    def _cross_entropy(self, other: Distribution) -> Tensor:
        return kullback_leibler.cross_entropy(self, other, allow_nan_stats=self.allow_nan_stats)

    def cross_entropy(self, other: Distribution, name: str = "cross_entropy") -> Tensor:
        with self._name_scope(name):
            return self._cross_entropy(other)

    def _kl_divergence(self, other: Distribution) -> Tensor:
        return kullback_leibler.kl_divergence(self, other, allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other: Distribution, name: str = "kl_divergence") -> Tensor:
        with self._name_scope(name):
            return self._kl_divergence(other)

    def __str__(self) -> str:
        batch = f", batch_shape={self.batch_shape}" if self.batch_shape.ndims is not None else ""
        event = f", event_shape={self.event_shape}" if self.event_shape.ndims is not None else ""
        return (
            f'tfp.distributions.{type(self).__name__}("{self.name}"{batch}{event}, '
            f"dtype={self.dtype.name})"
        )

    def __repr__(self) -> str:
        return (
            f"<tfp.distributions.{type(self).__name__} '{self.name}' "
            f"batch_shape={self.batch_shape} event_shape={self.event_shape} "
            f"dtype={self.dtype.name}>"
        )

    # -- helpers -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _name_scope(self, name: str | None = None, values: Any = None) -> Iterator[str]:
        parents = list(values or []) + self._graph_parents
        with name_scope(self.name), name_scope(name, values=parents) as scope:
            yield scope

    def _expand_sample_shape_to_vector(self, x: Tensor, name: str) -> tuple[Tensor, Any]:
        """The sample shape as a vector, and the number of samples it asks for."""
        static = tensor_util.constant_value(x)
        n: Any
        if static is None:
            n = math_ops.reduce_prod(x)
        else:
            n = np.prod(static, dtype=x.dtype.as_numpy_dtype)
        ndims = x.shape.ndims
        if ndims is None:
            expanded = util.pick_vector(
                math_ops.equal(array_ops.rank(x), 0),
                np.array([1], dtype=np.int32),
                array_ops.shape(x),
            )
            x = array_ops.reshape(x, expanded)
        elif ndims == 0:
            if static is not None:
                x = convert_to_tensor(np.array([static], dtype=x.dtype.as_numpy_dtype), name=name)
            else:
                x = array_ops.reshape(x, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, n

    def _set_sample_static_shape(self, x: Tensor, sample_shape: Tensor) -> Tensor:
        """Merges what is known statically of sample, batch and event shape into x's shape."""
        static = tensor_util.constant_value(sample_shape)
        sample = TensorShape(None if static is None else [int(d) for d in static])
        ndims = x.shape.ndims
        sample_ndims = sample.ndims
        batch_ndims = self.batch_shape.ndims
        event_ndims = self.event_shape.ndims
        if ndims is None and None not in (sample_ndims, batch_ndims, event_ndims):
            ndims = sample_ndims + batch_ndims + event_ndims  # type: ignore[operator]
            x.set_shape([None] * ndims)
        if ndims is not None and sample_ndims is not None:
            x.set_shape(x.shape.merge_with(sample.concatenate([None] * (ndims - sample_ndims))))
        if ndims is not None and event_ndims is not None:
            shape = TensorShape([None] * (ndims - event_ndims)).concatenate(self.event_shape)
            x.set_shape(x.shape.merge_with(shape))
        if batch_ndims is not None:
            if ndims is not None:
                if sample_ndims is None and event_ndims is not None:
                    sample_ndims = ndims - batch_ndims - event_ndims
                elif event_ndims is None and sample_ndims is not None:
                    event_ndims = ndims - batch_ndims - sample_ndims
            if sample_ndims is not None and event_ndims is not None:
                shape = (
                    TensorShape([None] * sample_ndims)
                    .concatenate(self.batch_shape)
                    .concatenate([None] * event_ndims)
                )
                x.set_shape(x.shape.merge_with(shape))
        return x

    def _is_scalar_helper(self, static_shape: TensorShape, dynamic_shape_fn: Any) -> Any:
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        shape = dynamic_shape_fn()
        if shape.shape.ndims is not None and shape.shape.dims[0].value is not None:
            return shape.shape.as_list() == [0]
        return math_ops.equal(array_ops.shape(shape)[0], 0)
