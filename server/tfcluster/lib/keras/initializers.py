"""tf.keras.initializers (TF 1.15's v1 set): tf's init_ops classes, except that Keras's
RandomNormal/RandomUniform/TruncatedNormal default to the small ranges Keras uses (stddev
0.05, [-0.05, 0.05])."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.ops import init_ops
from tfcluster.ops.init_ops import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    Identity,
    Initializer,
    Ones,
    Orthogonal,
    VarianceScaling,
    Zeros,
    he_normal,
    he_uniform,
    lecun_normal,
    lecun_uniform,
)


def _passes_dtype(parent: str) -> None:
    """TF's Keras RandomNormal/RandomUniform/TruncatedNormal pass `dtype` to their V1 parent,
    whose deprecated_args announces it (from here, where TF names its keras/initializers.py)."""
    internal_deprecations.called_internally_with_argument(
        internal_deprecations.initializer_dtype(parent), 2
    )


class RandomNormal(init_ops.RandomNormal):
    def __init__(
        self, mean: float = 0.0, stddev: float = 0.05, seed: Any = None, dtype: Any = dtypes.float32
    ) -> None:
        _passes_dtype("RandomNormal")
        super().__init__(mean=mean, stddev=stddev, seed=seed, **({"dtype": dtype} if dtype else {}))


class RandomUniform(init_ops.RandomUniform):
    def __init__(
        self,
        minval: float = -0.05,
        maxval: float = 0.05,
        seed: Any = None,
        dtype: Any = dtypes.float32,
    ) -> None:
        _passes_dtype("RandomUniform")
        super().__init__(
            minval=minval, maxval=maxval, seed=seed, **({"dtype": dtype} if dtype else {})
        )


class TruncatedNormal(init_ops.TruncatedNormal):
    def __init__(
        self, mean: float = 0.0, stddev: float = 0.05, seed: Any = None, dtype: Any = dtypes.float32
    ) -> None:
        _passes_dtype("TruncatedNormal")
        super().__init__(mean=mean, stddev=stddev, seed=seed, **({"dtype": dtype} if dtype else {}))


zeros = Zeros
ones = Ones
constant = Constant
identity = Identity
orthogonal = Orthogonal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
normal = random_normal = RandomNormal
uniform = random_uniform = RandomUniform
truncated_normal = TruncatedNormal

_BY_NAME: dict[str, Any] = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "identity": Identity,
    "orthogonal": Orthogonal,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_normal": he_normal,
    "he_uniform": he_uniform,
    "lecun_normal": lecun_normal,
    "lecun_uniform": lecun_uniform,
    "normal": RandomNormal,
    "random_normal": RandomNormal,
    "uniform": RandomUniform,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
}
_BY_CLASS: dict[str, Any] = {
    "Zeros": Zeros,
    "Ones": Ones,
    "Constant": Constant,
    "Identity": Identity,
    "Orthogonal": Orthogonal,
    "GlorotUniform": GlorotUniform,
    "GlorotNormal": GlorotNormal,
    "RandomNormal": RandomNormal,
    "RandomUniform": RandomUniform,
    "TruncatedNormal": TruncatedNormal,
    "VarianceScaling": VarianceScaling,
}


def serialize(initializer: Any) -> Any:
    if initializer is None:
        return None
    config = initializer.get_config() if hasattr(initializer, "get_config") else {}
    return {"class_name": type(initializer).__name__, "config": config}


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    objects = {**_BY_CLASS, **_BY_NAME, **(custom_objects or {})}
    if isinstance(config, dict):
        cls = objects.get(config.get("class_name", ""))
        if cls is None:
            raise ValueError(f"Unknown initializer: {config.get('class_name')}")
        # As Keras's deserialize_keras_object: the class's from_config, where it has one.
        from_config = getattr(cls, "from_config", None)
        if from_config is not None:
            return from_config(config.get("config", {}))
        return cls(**config.get("config", {}))
    if isinstance(config, str):
        found = objects.get(config)
        if found is None:
            raise ValueError(f"Unknown initializer: {config}")
        return found()
    raise ValueError(f"Could not interpret initializer identifier: {config}")


def get(identifier: Any) -> Any:
    """An initializer instance from None, a name, a config dict, a class or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "Identity", "Initializer", "Ones",
    "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros",
    "constant", "deserialize", "get", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "identity", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal",
    "random_normal", "random_uniform", "serialize", "truncated_normal", "uniform", "zeros",
]  # fmt: skip
