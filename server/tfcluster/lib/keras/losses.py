"""tf.keras.losses (TF 1.15): per-example loss functions `fn(y_true, y_pred)` (mean over the
last axis), the Keras-backend cross-entropies (which read the logits under a Softmax/Sigmoid
output, as 1.15 does), and Loss classes reducing them over the batch."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.lib.keras import backend
from tfcluster.ops import array_ops, clip_ops, math_ops, nn_ops


def _pair(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def _label_smoothing(label_smoothing: Any) -> Tensor | None:
    """label_smoothing as the tensor TF 1.15 makes of it (a `Const` in the loss's graph),
    or None where it is zero (smart_cond picks the unsmoothed labels)."""
    smoothing = convert_to_tensor(label_smoothing, dtype=backend.floatx())
    value = tensor_util.constant_value(smoothing)
    if value is None:
        raise backend.unimplemented("tf.keras losses with a label_smoothing tensor not constant")
    return smoothing if float(value) else None


def _logits_under(output: Any, op_type: str) -> Any:
    if isinstance(output, Tensor) and output.op.type == op_type:
        return output.op.inputs[0]
    return None


# ---- the backend cross-entropies -------------------------------------------------------------
def backend_categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    if not from_logits:
        logits = _logits_under(output, "Softmax")
        if logits is None:
            output = output / math_ops.reduce_sum(output, axis, True)
            eps = convert_to_tensor(backend.epsilon(), output.dtype.base_dtype)
            output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
            return -math_ops.reduce_sum(target * math_ops.log(output), axis)
        output = logits
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=target, logits=output, axis=axis)


def backend_sparse_categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    target = convert_to_tensor(target)
    output = convert_to_tensor(output)
    if not from_logits:
        logits = _logits_under(output, "Softmax")
        if logits is None:
            eps = convert_to_tensor(backend.epsilon(), output.dtype.base_dtype)
            output = clip_ops.clip_by_value(output, eps, 1 - eps)
            output = math_ops.log(output)
        else:
            output = logits
    output_rank = output.shape.ndims
    target_rank = target.shape.ndims
    update_shape = (
        target_rank is not None and output_rank is not None and (target_rank != output_rank - 1)
    )
    # TF 1.15's order: the cast, then the output's shape.
    target = math_ops.cast(target, dtypes.int64)
    output_shape = array_ops.shape(output)
    if update_shape:
        target = array_ops.reshape(target, [-1])
        output = array_ops.reshape(output, [-1, output_shape[-1]])
    res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if update_shape and output_rank is not None and output_rank >= 3:
        res = array_ops.reshape(res, output_shape[:-1])
    return res


def backend_binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    if not from_logits:
        logits = _logits_under(output, "Sigmoid")
        if logits is None:
            eps = convert_to_tensor(backend.epsilon(), output.dtype.base_dtype)
            output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
            bce = target * math_ops.log(output + backend.epsilon())
            bce += (1 - target) * math_ops.log(1 - output + backend.epsilon())
            return -bce
        output = logits
    return nn_ops.sigmoid_cross_entropy_with_logits(labels=target, logits=output)


# ---- per-example losses ----------------------------------------------------------------------
def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.squared_difference(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    diff = math_ops.abs(
        (y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true), backend.epsilon())
    )
    return 100.0 * math_ops.reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    first = math_ops.log(math_ops.maximum(y_pred, backend.epsilon()) + 1.0)
    second = math_ops.log(math_ops.maximum(y_true, backend.epsilon()) + 1.0)
    return math_ops.reduce_mean(math_ops.squared_difference(first, second), axis=-1)


def _maybe_convert_labels(y_true: Any) -> Any:
    """0/1 labels become -1/1 (hinge losses)."""
    is_binary = math_ops.reduce_all(
        math_ops.logical_or(math_ops.equal(y_true, 0), math_ops.equal(y_true, 1))
    )
    from tfcluster.lib.layers.utils import smart_cond

    return smart_cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return math_ops.reduce_mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred, 0.0)), -1)


def hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return math_ops.reduce_mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    pos = math_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = math_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return math_ops.maximum(0.0, neg - pos + 1.0)


def logcosh(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    value = x + nn_ops.softplus(-2.0 * x) - math_ops.log(2.0)
    return math_ops.reduce_mean(value, axis=-1)


def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0
) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    smoothing = _label_smoothing(label_smoothing)
    if smoothing is not None:
        classes = math_ops.cast(array_ops.shape(y_true)[1], y_pred.dtype)
        y_true = y_true * (1.0 - smoothing) + (smoothing / classes)
    return backend_categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    return backend_sparse_categorical_crossentropy(
        y_true, y_pred, from_logits=from_logits, axis=axis
    )


def binary_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0
) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    smoothing = _label_smoothing(label_smoothing)
    if smoothing is not None:
        y_true = y_true * (1.0 - smoothing) + 0.5 * smoothing
    return math_ops.reduce_mean(
        backend_binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1
    )


def kullback_leibler_divergence(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = clip_ops.clip_by_value(y_true, backend.epsilon(), 1)
    y_pred = clip_ops.clip_by_value(y_pred, backend.epsilon(), 1)
    return math_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + backend.epsilon()), -1)


def _l2_normalize(x: Any, axis: int) -> Any:
    square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
    return x * math_ops.rsqrt(math_ops.maximum(square_sum, 1e-12))


def cosine_proximity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """The cosine of the angle between y_true and y_pred (TF 1.15: not negated, under every
    one of its names)."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _l2_normalize(y_true, axis)
    y_pred = _l2_normalize(y_pred, axis)
    return math_ops.reduce_sum(y_true * y_pred, axis=axis)


cosine_similarity = cosine = cosine_proximity
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence


# ---- Loss classes ----------------------------------------------------------------------------
class Loss:
    """Calls the per-example function and averages over the batch (SUM_OVER_BATCH_SIZE)."""

    def __init__(self, reduction: str = "auto", name: str | None = None) -> None:
        self.reduction = reduction
        self.name = name

    def call(self, y_true: Any, y_pred: Any) -> Any:
        raise NotImplementedError

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        with name_scope(self.name or type(self).__name__):
            losses = self.call(y_true, y_pred)
            if sample_weight is not None:
                losses = losses * math_ops.cast(sample_weight, losses.dtype)
            if self.reduction == "none":
                return losses
            total = math_ops.reduce_sum(losses)
            if self.reduction == "sum":
                return total
            count = math_ops.cast(array_ops.size(losses), losses.dtype)
            return math_ops.div_no_nan(total, count)

    def get_config(self) -> dict[str, Any]:
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        return cls(**config)


class LossFunctionWrapper(Loss):
    def __init__(
        self,
        fn: Callable[..., Any],
        reduction: str = "auto",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        """reduction and name, then fn's options (from_logits, ...; a tensor's value)."""
        from tfcluster.lib.keras import backend

        options = {
            k: backend.eval(v) if hasattr(v, "op") else v for k, v in self._fn_kwargs.items()
        }
        return {**super().get_config(), **options}


def _loss_class(
    fn: Callable[..., Any],
    class_name: str,
    default_name: str,
    options: tuple[tuple[str, Any], ...] = (),
    kept: tuple[str, ...] = (),
) -> type:
    """A LossFunctionWrapper of fn with TF 1.15's constructor: fn's options (from_logits, ...),
    then reduction and name, bound like a def of those parameters would be; `kept` options
    are also the instance's attributes, where TF's class sets them."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [*options, ("reduction", "auto"), ("name", default_name)]
    signature = inspect.Signature(
        [inspect.Parameter("self", kind)]
        + [inspect.Parameter(name, kind, default=default) for name, default in params]
    )

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        del values["self"]
        reduction, name = values.pop("reduction"), values.pop("name")
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **values)
        for option in kept:
            setattr(self, option, values[option])

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return type(class_name, (LossFunctionWrapper,), {"__init__": __init__})


MeanSquaredError = _loss_class(mean_squared_error, "MeanSquaredError", "mean_squared_error")
MeanAbsoluteError = _loss_class(mean_absolute_error, "MeanAbsoluteError", "mean_absolute_error")
MeanAbsolutePercentageError = _loss_class(
    mean_absolute_percentage_error, "MeanAbsolutePercentageError", "mean_absolute_percentage_error"
)
MeanSquaredLogarithmicError = _loss_class(
    mean_squared_logarithmic_error, "MeanSquaredLogarithmicError", "mean_squared_logarithmic_error"
)
BinaryCrossentropy = _loss_class(
    binary_crossentropy,
    "BinaryCrossentropy",
    "binary_crossentropy",
    (("from_logits", False), ("label_smoothing", 0)),
    kept=("from_logits",),
)
CategoricalCrossentropy = _loss_class(
    categorical_crossentropy,
    "CategoricalCrossentropy",
    "categorical_crossentropy",
    (("from_logits", False), ("label_smoothing", 0)),
)
SparseCategoricalCrossentropy = _loss_class(
    sparse_categorical_crossentropy,
    "SparseCategoricalCrossentropy",
    "sparse_categorical_crossentropy",
    (("from_logits", False),),
)
Hinge = _loss_class(hinge, "Hinge", "hinge")
SquaredHinge = _loss_class(squared_hinge, "SquaredHinge", "squared_hinge")
CategoricalHinge = _loss_class(categorical_hinge, "CategoricalHinge", "categorical_hinge")
LogCosh = _loss_class(logcosh, "LogCosh", "logcosh")
Poisson = _loss_class(poisson, "Poisson", "poisson")
KLDivergence = _loss_class(
    kullback_leibler_divergence, "KLDivergence", "kullback_leibler_divergence"
)
CosineSimilarity = _loss_class(
    cosine_similarity, "CosineSimilarity", "cosine_similarity", (("axis", -1),)
)


class Huber(LossFunctionWrapper):
    def __init__(
        self, delta: float = 1.0, reduction: str = "auto", name: str = "huber_loss"
    ) -> None:
        super().__init__(_huber, reduction=reduction, name=name, delta=delta)


def _huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    error = y_pred - y_true
    abs_error = math_ops.abs(error)
    quadratic = math_ops.minimum(abs_error, delta)
    linear = abs_error - quadratic
    return math_ops.reduce_mean(0.5 * quadratic * quadratic + delta * linear, axis=-1)


_BY_NAME: dict[str, Any] = {
    name: value
    for name, value in dict(globals()).items()
    if not name.startswith("_") and (callable(value)) and name[0].islower()
    and not name.startswith("backend_") and name not in ("convert_to_tensor", "name_scope")
}  # fmt: skip


def serialize(loss: Any) -> Any:
    if hasattr(loss, "get_config"):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return loss.__name__


def deserialize(name: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    objects = {**_BY_NAME, **(custom_objects or {})}
    if isinstance(name, dict):
        cls = globals().get(name["class_name"]) or objects.get(name["class_name"])
        if cls is None:
            raise ValueError(f"Unknown loss function:{name['class_name']}")
        return cls(**name.get("config", {}))
    if name not in objects:
        raise ValueError(f"Unknown loss function:{name}")
    return objects[name]


def is_categorical_crossentropy(loss: Any) -> bool:
    """Whether a compiled loss is categorical cross-entropy (a class, a wrapper of the
    function, the function or its name), as Keras tests it."""
    return (
        isinstance(loss, CategoricalCrossentropy)
        or (isinstance(loss, LossFunctionWrapper) and loss.fn == categorical_crossentropy)
        or getattr(loss, "__name__", None) == "categorical_crossentropy"
        or (isinstance(loss, str) and loss == "categorical_crossentropy")
    )


def get(identifier: Any) -> Any:
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")
