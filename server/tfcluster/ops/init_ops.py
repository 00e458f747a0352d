"""Initializers (tf.initializers.*, tf.*_initializer): callables `init(shape, dtype,
partition_info)` that build the ops of a variable's initial value, as TF 1.15's init_ops.

The distributions' parameters (limits, standard deviations, truncation) follow TF's formulas
exactly; the random streams themselves are tfcluster's (not TF's Philox). Scale-based
initializers compute their fans from the full shape of a partitioned variable
(`partition_info.full_shape`), so every shard draws from the same distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import Dimension, TensorShape
from tfcluster.ops import array_ops, constant_op, linalg_ops, math_ops, random_ops
from tfcluster.ops.variables import (
    global_variables_initializer,
    local_variables_initializer,
    variables_initializer,
)

Shape = Sequence[Any]


def _dims(shape: Any) -> list[int]:
    """A static shape as Python ints (TensorShape, Dimensions and numpy ints accepted)."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    dims: list[int] = []
    for d in shape:
        value = d.value if isinstance(d, Dimension) else d
        if value is None:
            # TypeError as TF 1.15, which fails converting the None to an integer.
            raise TypeError(f"An initializer needs a fully defined shape, got {shape}")
        dims.append(int(value))
    return dims


def _dtype_str(dtype: dtypes.DType) -> str:
    return f"<dtype: '{dtype.name}'>"


def _assert_float_dtype(dtype: dtypes.DType) -> dtypes.DType:
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {_dtype_str(dtype)}.")
    return dtype


def _compute_fans(shape: Shape) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shape: dense [in, out], convolution [..., in, out]."""
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape[0], shape[1]
    else:
        receptive_field_size = 1
        for dim in shape[:-2]:
            receptive_field_size *= dim
        fan_in = shape[-2] * receptive_field_size
        fan_out = shape[-1] * receptive_field_size
    return int(fan_in), int(fan_out)


class Initializer:
    """Base class: `__call__(shape, dtype=None, partition_info=None)` returns a Tensor."""

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        if "dtype" in config and cls.__module__ == __name__:
            # TF's V1 initializers take a deprecated `dtype` (a Keras model's saved config
            # holds it): TF announces it from here at the first such class.
            internal_deprecations.called_internally_with_argument(
                internal_deprecations.initializer_dtype(cls.__name__)
            )
        return cls(**config)


class Zeros(Initializer):
    def __init__(self, dtype: Any = dtypes.float32) -> None:
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        return array_ops.zeros(_static(shape), dtype if dtype is not None else self.dtype)

    def get_config(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    def __init__(self, dtype: Any = dtypes.float32) -> None:
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        return array_ops.ones(_static(shape), dtype if dtype is not None else self.dtype)

    def get_config(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """A constant of the variable's shape from a scalar (broadcast) or a list/array (its
    values; fewer than needed are padded with the last one, as tf.constant does)."""

    def __init__(
        self, value: Any = 0, dtype: Any = dtypes.float32, verify_shape: bool = False
    ) -> None:
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value: {type(value)} (expected Python scalar, list "
                "or tuple of values, or numpy.ndarray)."
            )
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(
        self,
        shape: Shape,
        dtype: Any = None,
        partition_info: Any = None,
        verify_shape: bool | None = None,
    ) -> Any:
        if dtype is None:
            dtype = self.dtype
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(
            self.value, dtype=dtype, shape=_static(shape), verify_shape=verify_shape
        )

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    def __init__(
        self,
        minval: Any = 0,
        maxval: Any = None,
        seed: int | None = None,
        dtype: Any = dtypes.float32,
    ) -> None:
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        return random_ops.random_uniform(
            _static(shape), self.minval, self.maxval, dtype, seed=self.seed
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "minval": self.minval,
            "maxval": self.maxval,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class RandomNormal(Initializer):
    def __init__(
        self,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        seed: int | None = None,
        dtype: Any = dtypes.float32,
    ) -> None:
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        return random_ops.random_normal(_static(shape), self.mean, self.stddev, dtype, self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class TruncatedNormal(Initializer):
    """Normal values more than two standard deviations from the mean are drawn again."""

    def __init__(
        self,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        seed: int | None = None,
        dtype: Any = dtypes.float32,
    ) -> None:
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        return random_ops.truncated_normal(_static(shape), self.mean, self.stddev, dtype, self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "stddev": self.stddev,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class UniformUnitScaling(Initializer):
    """Uniform in [-sqrt(3 / input_size) * factor, +...], input_size the product of all but
    the last dimension of the (full) shape."""

    def __init__(
        self, factor: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32
    ) -> None:
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        scale_shape = _scale_shape(shape, partition_info)
        input_size = 1.0
        for dim in scale_shape[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(_static(shape), -max_val, max_val, dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


# The standard deviation of a standard normal truncated at two standard deviations: dividing
# by it gives the truncated draw the variance asked for (TF's constant, to its last digit).
_TRUNCATED_STDDEV = 0.87962566103423978


class VarianceScaling(Initializer):
    """Draws with variance scale / n, n the fan in, the fan out or their mean (`mode`);
    `distribution` truncated_normal (and its old name normal), untruncated_normal or uniform."""

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
        dtype: Any = dtypes.float32,
    ) -> None:
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        scale = self.scale
        fan_in, fan_out = _compute_fans(_scale_shape(shape, partition_info))
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        dims = _static(shape)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return random_ops.truncated_normal(dims, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            stddev = math.sqrt(scale)
            return random_ops.random_normal(dims, 0.0, stddev, dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(dims, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class Orthogonal(Initializer):
    """An orthogonal matrix (of the shape flattened to [prod(shape[:-1]), shape[-1]]) from the
    QR decomposition of a normal draw, signs fixed by R's diagonal, times `gain`."""

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        dims = _static(shape)
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = 1
        for dim in dims[:-1]:
            num_rows *= dim
        num_cols = int(dims[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a, full_matrices=False)
        d = linalg_ops.diag_part(r)
        q = math_ops.multiply(q, math_ops.sign(d), name="mul")
        if num_rows < num_cols:
            q = linalg_ops.matrix_transpose(q)
        return self.gain * array_ops.reshape(q, dims)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D only); a shard gets its slice of it."""

    def __init__(self, gain: float = 1.0, dtype: Any = dtypes.float32) -> None:
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape: Shape, dtype: Any = None, partition_info: Any = None) -> Any:
        full_shape = _dims(shape) if partition_info is None else _dims(partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        dtype = dtype if dtype is not None else self.dtype
        initializer = linalg_ops.eye(full_shape[0], full_shape[1], dtype=dtype)
        if partition_info is not None:
            initializer = array_ops.slice(initializer, partition_info.var_offset, _dims(shape))
        return self.gain * initializer

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Uniform in +-sqrt(6 / (fan_in + fan_out)): the default initializer of get_variable.
    Its dtype stays float32 whatever the constructor is given, as in TF 1.15."""

    def __init__(self, seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)) / .8796..."""

    def __init__(self, seed: int | None = None, dtype: Any = dtypes.float32) -> None:
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


def lecun_normal(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


def _static(shape: Any) -> Any:
    """Static shapes as int lists for the ops; a shape tensor, or a list holding tensors (as
    warm_start's backup initializers get), passes through to be packed by the op."""
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        return list(shape)
    if isinstance(shape, (TensorShape, list, tuple)):
        return _dims(shape)
    return shape


def _scale_shape(shape: Shape, partition_info: Any) -> list[int]:
    """The shape the scale is computed from: the whole variable's for a shard."""
    return _dims(partition_info.full_shape if partition_info is not None else shape)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity

# tf.initializers.global_variables() and friends: the ops that run the initializers.
global_variables = global_variables_initializer
local_variables = local_variables_initializer
variables = variables_initializer

__all__ = [
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "orthogonal_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "uniform_unit_scaling_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]
