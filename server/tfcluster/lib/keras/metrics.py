"""tf.keras.metrics (TF 1.15): per-example metric functions (accuracies, and the losses
used as metrics) and stateful Metric classes (`update_state`, `result`, `reset_states`) over
`total`/`count` variables (local, non-trainable)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import control_dependencies, convert_to_tensor
from tfcluster.lib.keras import backend, initializers, losses
from tfcluster.lib.keras.losses import (
    KLD,
    MAE,
    MAPE,
    MSE,
    MSLE,
    binary_crossentropy,
    categorical_crossentropy,
    cosine,
    cosine_proximity,
    hinge,
    kld,
    kullback_leibler_divergence,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from tfcluster.lib.keras.utils import losses_utils
from tfcluster.ops import array_ops, math_ops, nn_ops, state_ops, variables, weights_broadcast_ops
from tfcluster.ops.variables import VariableAggregation, VariableSynchronization


# ---- functions -------------------------------------------------------------------------------
def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_pred = convert_to_tensor(y_pred)
    cut = math_ops.cast(threshold, y_pred.dtype)
    y_pred = math_ops.cast(y_pred > cut, y_pred.dtype)
    return math_ops.reduce_mean(
        math_ops.cast(
            math_ops.equal(math_ops.cast(y_true, y_pred.dtype), y_pred), backend.floatx()
        ),
        axis=-1,
    )


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return math_ops.cast(
        math_ops.equal(math_ops.argmax(y_true, axis=-1), math_ops.argmax(y_pred, axis=-1)),
        backend.floatx(),
    )


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    y_pred_rank, y_true_rank = y_pred.shape.ndims, y_true.shape.ndims
    if y_true_rank is not None and y_pred_rank is not None and y_true_rank == y_pred_rank:
        y_true = array_ops.squeeze(y_true, [-1])
    y_pred = math_ops.argmax(y_pred, axis=-1)
    if y_pred.dtype != y_true.dtype:
        y_pred = math_ops.cast(y_pred, y_true.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), backend.floatx())


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    targets = math_ops.cast(math_ops.argmax(y_true, axis=-1), dtypes.int32)
    return math_ops.cast(nn_ops.in_top_k(y_pred, targets, k), backend.floatx())


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    y_true = convert_to_tensor(y_true)
    if y_true.shape.ndims == convert_to_tensor(y_pred).shape.ndims:
        y_true = array_ops.squeeze(y_true, [-1])
    return math_ops.cast(
        nn_ops.in_top_k(y_pred, math_ops.cast(y_true, dtypes.int32), k), backend.floatx()
    )


# ---- classes ---------------------------------------------------------------------------------
class Metric:
    """A stateful metric: variables updated by `update_state`, read by `result`."""

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        self.name = name or type(self).__name__.lower()
        self._dtype = dtypes.as_dtype(dtype or backend.floatx())
        self._variables: list[Any] = []
        self.stateful = True
        self.built = True
        # TF 1.15 records each update_state's op in `updates` (an EstimatorSpec takes the
        # metric itself as an eval_metric_op and runs updates[0]).
        self._updates: list[Any] = []
        update_state = self.update_state

        @functools.wraps(update_state)
        def recorded_update_state(*args: Any, **kwargs: Any) -> Any:
            op = update_state(*args, **kwargs)
            if op is not None:
                self._updates.append(op)
            return op

        self.update_state = recorded_update_state  # type: ignore[method-assign]

    @property
    def updates(self) -> list[Any]:
        return list(self._updates)

    @property
    def dtype(self) -> str:
        """The dtype's name ('float32'), as a Keras layer's (TF 1.15's Metric is a Layer)."""
        return str(self._dtype.name)

    @property
    def variables(self) -> list[Any]:
        return list(self._variables)

    weights = variables

    # ---- the Layer API TF 1.15's metrics have (a Metric is a Keras Layer there) -----------
    trainable = True
    supports_masking = False
    dynamic = False
    input_spec = None
    activity_regularizer = None

    @property
    def trainable_weights(self) -> list[Any]:
        """None: a metric's state variables are not trained."""
        return []

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self) -> list[Any]:
        return self.variables

    non_trainable_variables = non_trainable_weights

    @property
    def losses(self) -> list[Any]:
        return []

    @property
    def metrics(self) -> list[Any]:
        return []

    def get_weights(self) -> list[Any]:
        return backend.batch_get_value(self.variables)  # type: ignore[no-any-return]

    def set_weights(self, weights: Any) -> None:
        from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

        KerasLayerMixin.set_weights(self, weights)  # type: ignore[arg-type]

    @property
    def _name(self) -> str:
        return self.name

    def count_params(self) -> int:
        return int(sum(np.prod(v.shape.as_list()) for v in self.variables))

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)

    def add_weight(
        self,
        name: str,
        shape: Any = (),
        aggregation: Any = VariableAggregation.SUM,
        synchronization: Any = VariableSynchronization.ON_READ,
        initializer: Any = None,
        dtype: Any = None,
    ) -> Any:
        """A metric's state variable; without an initializer, a floating one starts as Keras
        layers' weights do (glorot_uniform), others at zeros (TF 1.15)."""
        dtype = dtypes.as_dtype(dtype or self._dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init, var_shape = initializers.get(initializer), tuple(shape)

        def initial_value() -> Any:
            # Under the variable's `Initializer` scope: `total/Initializer/zeros` (TF 1.15).
            return init(var_shape, dtype=dtype)

        # TF 1.15 makes them in the current name scope (`total`, `total_1`, ... at the top).
        v = variables.Variable(
            initial_value,
            name=name,
            dtype=dtype,
            trainable=False,
            # TF 1.15's Metric.add_weight: a Keras weight (a resource variable) in no
            # collection, initialized by Keras's session.
            collections=[],
            use_resource=True,
            synchronization=synchronization,
            aggregation=aggregation,
        )
        backend.track_variable(v)
        self._variables.append(v)
        return v

    def reset_states(self) -> None:
        backend.batch_set_value([(v, np.zeros(v.shape.as_list())) for v in self._variables])

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def result(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        def replica_local_fn(*args: Any, **kwargs: Any) -> Any:
            update = self.update_state(*args, **kwargs)
            with control_dependencies([update]):
                result = array_ops.identity(self.result())
            # As TF's: add_metric takes such a result and finds the metric that made it.
            result._metric_obj = self  # type: ignore[attr-defined]
            return result

        return _call_replica_local_fn(replica_local_fn, *args, **kwargs)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self._dtype.name}


def _call_replica_local_fn(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """TF 1.15's call_replica_local_fn: in a tf.distribute strategy's cross-replica context
    (a model compiled in its scope) `fn` runs once per replica, where the metric's variables,
    replica-local, take an assign_add (across replicas they refuse it)."""
    from tfcluster.lib.distribute import strategy as distribute

    if distribute.has_strategy() and distribute.in_cross_replica_context():
        current = distribute.get_strategy()
        with current.scope():
            return current.extended.call_for_each_replica(fn, args, kwargs)
    return fn(*args, **kwargs)


class _Reduce(Metric):
    def __init__(self, reduction: str, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total", initializer="zeros")
        if reduction != "sum":
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        # TF 1.15's Reduce.update_state, op for op (its ops move later op seeds).
        values = math_ops.cast(values, self._dtype)
        if sample_weight is not None:
            sample_weight = math_ops.cast(sample_weight, self._dtype)
            values, _, sample_weight = losses_utils.squeeze_or_expand_dimensions(
                values, sample_weight=sample_weight
            )
            try:
                sample_weight = weights_broadcast_ops.broadcast_weights(sample_weight, values)
            except ValueError:
                # Values reduced to the weights' rank.
                ndim, weight_ndim = values.shape.ndims, sample_weight.shape.ndims
                axes = list(range(weight_ndim, ndim))
                if self.reduction == "sum":
                    values = math_ops.reduce_sum(values, axis=axes)
                else:
                    values = math_ops.reduce_mean(values, axis=axes)
            values = math_ops.multiply(values, sample_weight)
        value_sum = math_ops.reduce_sum(values)
        with control_dependencies([value_sum]):
            update_total = state_ops.assign_add(self.total, value_sum)
        if self.reduction == "sum":
            return update_total
        if sample_weight is None:
            num = math_ops.cast(array_ops.size(values), self._dtype)
        else:
            num = math_ops.reduce_sum(sample_weight)
        with control_dependencies([update_total]):
            return state_ops.assign_add(self.count, num)

    def result(self) -> Any:
        if self.reduction == "sum":
            return array_ops.identity(self.total)
        return math_ops.div_no_nan(self.total, self.count)


class Sum(_Reduce):
    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__("sum", name=name, dtype=dtype)


class Mean(_Reduce):
    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__("mean", name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    def __init__(
        self, fn: Callable[..., Any], name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(  # type: ignore[override]  # Keras's (y_true, y_pred) metrics
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> Any:
        y_true = math_ops.cast(y_true, self._dtype) if y_true is not None else y_true
        y_pred = math_ops.cast(y_pred, self._dtype)
        if y_true is not None:
            y_pred, y_true = losses_utils.squeeze_or_expand_dimensions(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(matches, sample_weight=sample_weight)


def _accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = convert_to_tensor(y_pred)
    return math_ops.cast(
        math_ops.equal(math_ops.cast(y_true, y_pred.dtype), y_pred), backend.floatx()
    )


def _wrapper(
    fn: Callable[..., Any],
    class_name: str,
    default_name: str,
    options: tuple[tuple[str, Any], ...] = (),
    options_first: bool = False,
) -> type:
    """A MeanMetricWrapper of fn with TF 1.15's constructor: (name, dtype) and fn's options
    (after them, or first as TopK's k), bound like a def of those parameters would be."""
    named = [("name", default_name), ("dtype", None)]
    params = [*options, *named] if options_first else [*named, *options]
    signature = _constructor_signature(params)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        del values["self"]
        name, dtype = values.pop("name"), values.pop("dtype")
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__})


def _constructor_signature(params: list[tuple[str, Any]]) -> inspect.Signature:
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [inspect.Parameter("self", kind)]
        + [inspect.Parameter(name, kind, default=default) for name, default in params]
    )


Accuracy = _wrapper(_accuracy, "Accuracy", "accuracy")
BinaryAccuracy = _wrapper(
    binary_accuracy, "BinaryAccuracy", "binary_accuracy", (("threshold", 0.5),)
)
CategoricalAccuracy = _wrapper(categorical_accuracy, "CategoricalAccuracy", "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper(
    sparse_categorical_accuracy, "SparseCategoricalAccuracy", "sparse_categorical_accuracy"
)
TopKCategoricalAccuracy = _wrapper(
    top_k_categorical_accuracy,
    "TopKCategoricalAccuracy",
    "top_k_categorical_accuracy",
    (("k", 5),),
    options_first=True,
)
SparseTopKCategoricalAccuracy = _wrapper(
    sparse_top_k_categorical_accuracy,
    "SparseTopKCategoricalAccuracy",
    "sparse_top_k_categorical_accuracy",
    (("k", 5),),
    options_first=True,
)
MeanSquaredError = _wrapper(mean_squared_error, "MeanSquaredError", "mean_squared_error")
MeanAbsoluteError = _wrapper(mean_absolute_error, "MeanAbsoluteError", "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper(
    mean_absolute_percentage_error, "MeanAbsolutePercentageError", "mean_absolute_percentage_error"
)
MeanSquaredLogarithmicError = _wrapper(
    mean_squared_logarithmic_error, "MeanSquaredLogarithmicError", "mean_squared_logarithmic_error"
)
BinaryCrossentropy = _wrapper(
    binary_crossentropy,
    "BinaryCrossentropy",
    "binary_crossentropy",
    (("from_logits", False), ("label_smoothing", 0)),
)
CategoricalCrossentropy = _wrapper(
    categorical_crossentropy,
    "CategoricalCrossentropy",
    "categorical_crossentropy",
    (("from_logits", False), ("label_smoothing", 0)),
)
SparseCategoricalCrossentropy = _wrapper(
    sparse_categorical_crossentropy,
    "SparseCategoricalCrossentropy",
    "sparse_categorical_crossentropy",
    (("from_logits", False), ("axis", -1)),
)
Hinge = _wrapper(hinge, "Hinge", "hinge")
SquaredHinge = _wrapper(squared_hinge, "SquaredHinge", "squared_hinge")
KLDivergence = _wrapper(kullback_leibler_divergence, "KLDivergence", "kullback_leibler_divergence")
Poisson = _wrapper(poisson, "Poisson", "poisson")
LogCoshError = _wrapper(logcosh, "LogCoshError", "logcosh")


class RootMeanSquaredError(Mean):
    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(  # type: ignore[override]  # Keras's (y_true, y_pred) metrics
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> Any:
        y_pred = convert_to_tensor(y_pred)
        error = math_ops.squared_difference(y_pred, math_ops.cast(y_true, y_pred.dtype))
        return super().update_state(error, sample_weight=sample_weight)

    def result(self) -> Any:
        return math_ops.sqrt(math_ops.div_no_nan(self.total, self.count))


_BY_NAME: dict[str, Any] = {
    "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
}


def serialize(metric: Any) -> Any:
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    return metric.__name__


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    if isinstance(config, dict):
        from tfcluster.lib.keras import metrics_extra

        cls = (custom_objects or {}).get(config["class_name"]) or globals().get(
            config["class_name"], getattr(metrics_extra, config["class_name"], None)
        )
        if cls is None:
            raise ValueError(f"Unknown metric function:{config['class_name']}")
        return cls(**config.get("config", {}))
    objects = {**_BY_NAME, **(custom_objects or {})}
    if config in objects:
        return objects[config]
    return losses.deserialize(config, custom_objects)


def get(identifier: Any) -> Any:
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric function identifier: {identifier}")


__all__ = [
    "KLD", "MAE", "MAPE", "MSE", "MSLE", "cosine", "cosine_proximity", "kld", "mae", "mape",
    "mse", "msle", "kullback_leibler_divergence", "logcosh", "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error",
]  # fmt: skip
