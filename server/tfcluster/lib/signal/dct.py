"""The discrete cosine transform, types I-III over the last axis (tf.signal.dct / idct, also
tf.spectral), computed through real FFTs as TF 1.15 does, so values and gradients follow TF's."""

from __future__ import annotations

import math
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import dimension_value
from tfcluster.ops import array_ops, complex_ops, math_ops, spectral_ops


def _validate(x: Any, dct_type: int, n: int | None, axis: int, norm: str | None) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3):
        raise ValueError("Only Types I, II and III (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = _last_dim(x)
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _last_dim(x: Any) -> int | None:
    shape = getattr(x, "shape", None)
    if shape is None or getattr(shape, "ndims", 1) is None or len(shape) == 0:
        return None
    return dimension_value(shape[-1])


def _length(x: Tensor) -> Any:
    static = dimension_value(x.shape[-1]) if x.shape.ndims else None
    return static if static else array_ops.shape(x)[-1]


def _resized(x: Tensor, n: int | None) -> Tensor:
    """x cut or zero-padded to n values on its last axis."""
    have = _length(x)
    if n is None:
        return x
    if isinstance(have, int):
        if n <= have:
            return x[..., 0:n]
        pads = [[0, 0] for _ in range(len(x.shape))]
        pads[-1][1] = n - have
        return array_ops.pad(x, convert_to_tensor(pads, dtype=dtypes.int32))
    raise ValueError("n needs the last dimension of the input known when the graph is built")


def _twiddle(count: Tensor, inverse: bool) -> Tensor:
    """2 exp(-+ i pi k / (2 N)) for k < N (+ for the inverse)."""
    k = math_ops.range(count)
    phase = (k if inverse else -k) * math.pi * 0.5 / count
    return 2.0 * math_ops.exp(complex_ops.complex(0.0, phase))


def _ortho_weights(first: Tensor, rest: Tensor, count: Any) -> Tensor:
    return array_ops.pad(array_ops.expand_dims(first, 0), [[0, count - 1]], constant_values=rest)


def dct(
    input: Any,
    type: int = 2,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    name: str | None = None,
) -> Tensor:
    """The type I, II or III DCT of the last axis (norm=None or 'ortho', as scipy's)."""
    _validate(input, type, n, axis, norm)
    with name_scope(name, "dct", [input]):
        x = _resized(convert_to_tensor(input, dtype=dtypes.float32), n)
        count = _length(x)
        count_f = math_ops.cast(count, dtypes.float32)
        if type == 1:
            # The even extension x0..x(N-1), x(N-2)..x1 has a real spectrum: its RFFT.
            return complex_ops.real(spectral_ops.rfft(array_ops.concat([x, x[..., -2:0:-1]], -1)))
        if type == 2:
            spectrum = spectral_ops.rfft(x, fft_length=[2 * count])[..., :count]
            out = complex_ops.real(spectrum * _twiddle(count_f, inverse=False))
            if norm == "ortho":
                first = 0.5 * math_ops.rsqrt(count_f)
                out = out * _ortho_weights(first, first * math_ops.sqrt(2.0), count)
            return out
        if norm == "ortho":
            first = math_ops.sqrt(count_f)
            x = x * _ortho_weights(first, first * math_ops.sqrt(0.5), count)
        else:
            x = x * count_f
        half_spectrum = _twiddle(count_f, inverse=True) * complex_ops.complex(x, 0.0)
        return complex_ops.real(spectral_ops.irfft(half_spectrum, fft_length=[2 * count]))[
            ..., :count
        ]


def idct(
    input: Any,
    type: int = 2,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    name: str | None = None,
) -> Tensor:
    """The inverse DCT: type II's inverse is type III and back (type I is its own, up to
    2 (N - 1) without normalisation)."""
    _validate(input, type, n, axis, norm)
    return dct(input, type={1: 1, 2: 3, 3: 2}[type], n=n, axis=axis, norm=norm, name=name)
