"""tf.keras.regularizers as in TF 1.15: callables `reg(weights) -> scalar loss` that
tf.get_variable / tf.layers take as `regularizer=`; their losses land in
GraphKeys.REGULARIZATION_LOSSES."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.ops import constant_op, math_ops

_FLOATX = np.float32  # keras' floatx(): the dtype of the factors and of the zero loss


def _cast_to_floatx(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=_FLOATX)


class Regularizer:
    """Base class: called on a weight tensor, returns its penalty."""

    def __call__(self, x: Any) -> Any:
        return 0.0

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        return cls(**config)


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x^2); a constant 0 when both factors are 0."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _cast_to_floatx(l1)
        self.l2 = _cast_to_floatx(l2)

    def __call__(self, x: Any) -> Any:
        if not self.l1 and not self.l2:
            return constant_op.constant(0.0, dtype="float32")
        regularization: Any = 0.0
        if self.l1:
            regularization += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            regularization += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        return regularization

    def get_config(self) -> dict[str, float]:
        return {"l1": float(self.l1), "l2": float(self.l2)}


def l1(l: float = 0.01) -> L1L2:
    return L1L2(l1=l)


def l2(l: float = 0.01) -> L1L2:
    return L1L2(l2=l)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    return L1L2(l1=l1, l2=l2)


_KNOWN: dict[str, Any] = {
    "Regularizer": Regularizer,
    "L1L2": L1L2,
    "l1": l1,
    "l2": l2,
    "l1_l2": l1_l2,
}


def serialize(regularizer: Any) -> Any:
    """{'class_name': ..., 'config': ...} for an object with get_config; a function's name."""
    if regularizer is None:
        return None
    if hasattr(regularizer, "get_config"):
        return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}
    if hasattr(regularizer, "__name__"):
        return regularizer.__name__
    raise ValueError(f"Cannot serialize {regularizer}")


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    objects = {**_KNOWN, **(custom_objects or {})}
    if isinstance(config, dict):
        if "class_name" not in config or "config" not in config:
            raise ValueError(f"Improper config format: {config}")
        name = config["class_name"]
        cls = objects.get(name)
        if cls is None:
            raise ValueError(f"Unknown regularizer: {name}")
        if hasattr(cls, "from_config"):
            return cls.from_config(config["config"])
        return cls(**config["config"])
    if isinstance(config, str):
        found = objects.get(config)
        if found is None:
            raise ValueError(f"Unknown regularizer:{config}")
        return found
    raise ValueError(f"Could not interpret serialized regularizer: {config}")


def get(identifier: Any) -> Callable[[Any], Any] | None:
    """A regularizer from None, a config dict, a name ('l1', 'l2', 'l1_l2' give defaults) or a
    callable (returned as it is)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)  # type: ignore[no-any-return]
    if isinstance(identifier, str):
        if identifier in ("l1", "l2", "l1_l2"):
            return deserialize({"class_name": identifier, "config": {}})  # type: ignore[no-any-return]
        return deserialize(identifier)  # type: ignore[no-any-return]
    if callable(identifier):
        return identifier  # type: ignore[no-any-return]
    raise ValueError("Could not interpret regularizer identifier:", identifier)


__all__ = ["L1L2", "Regularizer", "deserialize", "get", "l1", "l1_l2", "l2", "serialize"]
