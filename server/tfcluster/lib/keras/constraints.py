"""tf.keras.constraints (TF 1.15): functions applied to a weight after each optimizer update
(`kernel_constraint=...`), with Keras's names, aliases and (de)serialization."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.utils import object_registry
from tfcluster.ops import array_ops, math_ops


class Constraint:
    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict[str, Any]:
        return {}


def _norms(w: Any, axis: Any) -> Any:
    return backend.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scales each weight vector (along `axis`) whose norm exceeds max_value down to it."""

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = backend.clip(norms, 0, self.max_value)
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    def __call__(self, w: Any) -> Any:
        return w * math_ops.cast(math_ops.greater_equal(w, 0.0), backend.floatx())


class UnitNorm(Constraint):
    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        return w / (backend.epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each norm `rate` of the way into [min_value, max_value]."""

    def __init__(
        self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0
    ) -> None:
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = (
            self.rate * backend.clip(norms, self.min_value, self.max_value)
            + (1 - self.rate) * norms
        )
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": self.axis,
        }


def _radial_source(size: int) -> np.ndarray:
    """Which diagonal element TF 1.15's RadialConstraint copies to each (row, col) of a
    size x size kernel: rings around the centre, each set from one diagonal element (its
    while-loop starts from element start-1 and pads ring by ring; even sizes start from a
    2x2 block)."""
    start = size // 2
    centre = (size - 1) / 2.0
    ring = np.maximum(
        np.abs(np.arange(size)[:, None] - centre), np.abs(np.arange(size)[None, :] - centre)
    )
    if size % 2:
        ring_index = ring.astype(int)  # 0 at the centre
        diag = np.where(ring_index == 0, start - 1, start + ring_index - 1)
    else:
        ring_index = (ring - 0.5).astype(int)  # 0 for the inner 2x2 block
        diag = np.where(ring_index == 0, start - 1, start + ring_index)
    return np.asarray(diag * size + diag, dtype=np.int32)


class RadialConstraint(Constraint):
    """Makes each 2-D kernel of a [h, w, in, out] weight radially symmetric, as TF 1.15 does
    it (values taken from the kernel's diagonal)."""

    def __call__(self, w: Any) -> Any:
        shape = w.shape
        if shape.ndims is None or shape.ndims != 4:
            raise ValueError(f"The weight tensor must be of rank 4, but is of shape: {shape}")
        height, width, channels, kernels = shape.as_list()
        if height != width:
            raise backend.unimplemented(
                "tf.keras.constraints.RadialConstraint of a non-square kernel"
            )
        flat = array_ops.reshape(w, (height * width, channels * kernels))
        source = _radial_source(height).reshape(-1)
        picked = array_ops.gather(flat, source)
        return array_ops.reshape(picked, (height, width, channels, kernels))


# Keras's aliases.
max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm
radial_constraint = RadialConstraint
maxnorm = MaxNorm
nonneg = NonNeg
unitnorm = UnitNorm

_MODULE_OBJECTS: dict[str, Any] = {
    "Constraint": Constraint,
    "MaxNorm": MaxNorm,
    "NonNeg": NonNeg,
    "UnitNorm": UnitNorm,
    "MinMaxNorm": MinMaxNorm,
    "RadialConstraint": RadialConstraint,
    "max_norm": max_norm,
    "non_neg": non_neg,
    "unit_norm": unit_norm,
    "min_max_norm": min_max_norm,
    "radial_constraint": radial_constraint,
    "maxnorm": maxnorm,
    "nonneg": nonneg,
    "unitnorm": unitnorm,
}


def serialize(constraint: Any) -> Any:
    return object_registry.serialize_keras_object(constraint)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    return object_registry.deserialize_keras_object(
        config, _MODULE_OBJECTS, custom_objects, printable_module_name="constraint"
    )


def get(identifier: Any) -> Any:
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}})
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret constraint identifier: " + str(identifier))


__all__ = [
    "Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "RadialConstraint", "UnitNorm",
    "deserialize", "get", "max_norm", "min_max_norm", "non_neg", "radial_constraint",
    "serialize", "unit_norm",
]  # fmt: skip
