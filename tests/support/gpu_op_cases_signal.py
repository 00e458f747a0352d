"""GPU comparison cases (see gpu_op_cases.py) of the FFT ops, the complex modulus and the
tridiagonal ops, whose kernels are written once over xp."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf

from support.gpu_op_cases import CASES, Build


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _vals(shape: tuple[int, ...], seed: int, dtype: Any = np.float32) -> Any:
    rng = np.random.default_rng(seed)
    return tf.constant(rng.uniform(-2.0, 2.0, shape).astype(dtype))


@_case("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "ComplexAbs")
def _complex_fft() -> Build:
    z = tf.complex(_vals((2, 3, 4, 5), 40), _vals((2, 3, 4, 5), 41))
    z128 = tf.complex(_vals((3, 6), 42, np.float64), _vals((3, 6), 43, np.float64))
    return Build(
        [
            tf.signal.fft(z),
            tf.signal.ifft(z),
            tf.signal.fft2d(z),
            tf.signal.ifft2d(z),
            tf.signal.fft3d(z),
            tf.signal.ifft3d(z),
            tf.signal.fft(z128),
            tf.abs(z),
            tf.abs(z128),
        ]
    )


@_case("RFFT", "IRFFT", "RFFT2D", "IRFFT2D", "RFFT3D", "IRFFT3D")
def _real_fft() -> Build:
    x = _vals((2, 3, 6, 8), 44)
    half = tf.signal.rfft(x)
    return Build(
        [
            half,
            tf.signal.rfft(x, fft_length=[5]),
            tf.signal.irfft(half),
            tf.signal.irfft(half, fft_length=[7]),
            tf.signal.rfft2d(x),
            tf.signal.irfft2d(tf.signal.rfft2d(x)),
            tf.signal.rfft3d(x),
            tf.signal.irfft3d(tf.signal.rfft3d(x), fft_length=[3, 6, 9]),
        ]
    )


@_case("TridiagonalMatMul", "TridiagonalSolve")
def _tridiagonal() -> Build:
    diags = _vals((2, 3, 12), 45, np.float64) + tf.constant([0.0, 5.0, 0.0], tf.float64)[:, None]
    rhs = _vals((2, 12, 3), 46, np.float64)
    weak = _vals((2, 3, 5), 47, np.float64)  # not dominant: the pivoting path
    return Build(
        [
            tf.linalg.tridiagonal_matmul(diags, rhs),
            tf.linalg.tridiagonal_solve(diags, rhs),
            tf.linalg.tridiagonal_solve(weak, rhs[:, :5]),
            tf.linalg.tridiagonal_solve(diags, rhs, partial_pivoting=False),
        ]
    )
