"""tf.keras.activations (TF 1.15): functions of a tensor, and `get` by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import internal_deprecations
from tfcluster.framework.graph import convert_to_tensor
from tfcluster.ops import clip_ops, constant_op, math_ops, nn_ops


def softmax(x: Any, axis: int = -1) -> Any:
    rank = x.shape.ndims
    if rank == 2:
        return nn_ops.softmax(x)
    if rank is not None and rank > 2:
        e = math_ops.exp(x - math_ops.reduce_max(x, axis=axis, keepdims=True))
        return e / math_ops.reduce_sum(e, axis=axis, keepdims=True)
    raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")


def elu(x: Any, alpha: float = 1.0) -> Any:
    res = nn_ops.elu(x)
    if alpha == 1:
        return res
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    return math_ops.select(x > 0, res, alpha * res)


def selu(x: Any) -> Any:
    # TF 1.15's Keras selu: scale * elu(x, alpha) (Elu, Greater, mul, Select, mul), not the
    # Selu op; its op count sets later random seeds.
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def softplus(x: Any) -> Any:
    return nn_ops.softplus(x)


def softsign(x: Any) -> Any:
    return nn_ops.softsign(x)


def relu(x: Any, alpha: float = 0.0, max_value: Any = None, threshold: float = 0) -> Any:
    if alpha == 0 and threshold == 0:
        if max_value == 6:
            return nn_ops.relu6(x)
        out = nn_ops.relu(x)
        if max_value is not None:
            out = clip_ops.clip_by_value(out, 0.0, float(max_value))
        return out
    negative = nn_ops.relu(-x + threshold) if alpha != 0 else None
    out = nn_ops.relu(x - threshold) + threshold if threshold != 0 else nn_ops.relu(x)
    if threshold != 0:
        out = out * math_ops.cast(x > threshold, x.dtype)
    if max_value is not None:
        out = clip_ops.clip_by_value(out, 0.0, float(max_value))
    if negative is not None:
        out = out - alpha * negative
    return out


def tanh(x: Any) -> Any:
    return math_ops.tanh(x)


def sigmoid(x: Any) -> Any:
    return math_ops.sigmoid(x)


def exponential(x: Any) -> Any:
    return math_ops.exp(x)


def hard_sigmoid(x: Any) -> Any:
    # K.hard_sigmoid's ops: Const 0.2 and 0.5, Mul, Add (tf.add), clip_by_value.
    x = convert_to_tensor(x)
    point_two = constant_op.constant(0.2, dtype=x.dtype.base_dtype)
    point_five = constant_op.constant(0.5, dtype=x.dtype.base_dtype)
    x = math_ops.add(math_ops.multiply(x, point_two), point_five)
    return clip_ops.clip_by_value(x, 0.0, 1.0)


def linear(x: Any) -> Any:
    return x


_BY_NAME: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        softmax, elu, selu, softplus, softsign, relu, tanh, sigmoid, exponential, hard_sigmoid,
        linear,
    )
}  # fmt: skip


def serialize(activation: Any) -> str:
    return str(activation.__name__)


def deserialize(name: str, custom_objects: dict[str, Any] | None = None) -> Callable[..., Any]:
    objects = {**_BY_NAME, **(custom_objects or {})}
    if name not in objects:
        raise ValueError(f"Unknown activation function:{name}")
    return objects[name]


def get(identifier: Any) -> Callable[..., Any]:
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return deserialize(identifier)
    if callable(identifier):
        return identifier  # type: ignore[no-any-return]
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")


__all__ = [
    "deserialize", "elu", "exponential", "get", "hard_sigmoid", "linear", "relu", "selu",
    "serialize", "sigmoid", "softmax", "softplus", "softsign", "tanh",
]  # fmt: skip
