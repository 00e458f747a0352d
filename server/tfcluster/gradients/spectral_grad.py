"""Gradients of the FFT ops, for the ops TF 1.15 registers them for (FFT/IFFT 1D-3D, RFFT/IRFFT
and RFFT2D/IRFFT2D; the 3D real transforms have none in TF either).

TF's convention for a complex gradient g is dL/dRe + i dL/dIm, so a linear map's gradient is
its adjoint: the adjoint of an FFT over N points is N times the inverse FFT, and so on."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, complex_ops, constant_op, math_ops, spectral_ops

_FORWARD = {1: spectral_ops.fft, 2: spectral_ops.fft2d, 3: spectral_ops.fft3d}
_INVERSE = {1: spectral_ops.ifft, 2: spectral_ops.ifft2d, 3: spectral_ops.ifft3d}
_RFFT = {1: spectral_ops.rfft, 2: spectral_ops.rfft2d}


def _points(t: Tensor, rank: int) -> Tensor:
    """The number of points the transform runs over: the product of the inner dimensions."""
    return math_ops.reduce_prod(array_ops.shape(t)[-rank:])


def _register_complex(rank: int) -> None:
    suffix = {1: "", 2: "2D", 3: "3D"}[rank]

    @RegisterGradient(f"FFT{suffix}")
    def _fft_grad(op: Operation, grad: Tensor) -> Any:
        size = math_ops.cast(_points(grad, rank), grad.dtype)
        return _INVERSE[rank](grad) * size

    @RegisterGradient(f"IFFT{suffix}")
    def _ifft_grad(op: Operation, grad: Tensor) -> Any:
        real = grad.dtype.real_dtype
        rsize = math_ops.cast(1.0 / math_ops.cast(_points(grad, rank), real), grad.dtype)
        return _FORWARD[rank](grad) * rsize


for _rank in (1, 2, 3):
    _register_complex(_rank)


def _pad_last_dim_to(grad: Tensor, fft_length: Tensor) -> Tensor:
    """grad (the n // 2 + 1 kept frequencies) with zeros for the n - (n // 2 + 1) dropped ones."""
    lengths = tensor_util.constant_value(fft_length)
    if lengths is not None and grad.shape.ndims is not None:
        n = int(lengths.reshape(-1)[-1])
        pads = [[0, 0]] * (grad.shape.ndims - 1) + [[0, n - (n // 2 + 1)]]
        return array_ops.pad(grad, pads)
    rank = array_ops.rank(grad)
    missing = fft_length[-1] - array_ops.shape(grad)[-1]
    after = array_ops.concat([array_ops.zeros([rank - 1], dtypes.int32), [missing]], 0)
    return array_ops.pad(grad, array_ops.stack([array_ops.zeros_like(after), after], axis=1))


def _register_rfft(rank: int) -> None:
    suffix = {1: "", 2: "2D"}[rank]

    @RegisterGradient(f"RFFT{suffix}")
    def _rfft_grad(op: Operation, grad: Tensor) -> Any:
        # dL/dx_n = Re(sum over kept frequencies k of g_k e^{+2 pi i k n / N}): the inverse
        # complex FFT of g padded with zeros for the frequencies the RFFT leaves out, times N.
        x, fft_length = op.inputs
        full = _pad_last_dim_to(grad, fft_length)
        size = math_ops.cast(_points(x, rank), dtypes.float32)
        return complex_ops.real(_INVERSE[rank](full)) * size, None

    @RegisterGradient(f"IRFFT{suffix}")
    def _irfft_grad(op: Operation, grad: Tensor) -> Any:
        # Every kept frequency but the first (and the last of an even length) stands for itself
        # and its mirrored conjugate, so it counts twice.
        fft_length = op.inputs[1]
        rsize = math_ops.reciprocal(math_ops.cast(_points(grad, rank), dtypes.float32))
        weights = rsize * _twice_mirrored(fft_length, array_ops.shape(op.inputs[0])[-1])
        return _RFFT[rank](grad, fft_length) * math_ops.cast(weights, dtypes.complex64), None


def _twice_mirrored(fft_length: Tensor, kept: Tensor) -> Tensor:
    """[1, 2, ..., 2] over `kept` frequencies, with a final 1 when the length is even."""
    lengths = tensor_util.constant_value(fft_length)
    known_kept = tensor_util.constant_value(kept)
    if lengths is not None and known_kept is not None:
        n, m = int(lengths.reshape(-1)[-1]), int(known_kept)
        mask = np.full([m], 2.0, np.float32)
        mask[:1] = 1.0
        if n % 2 == 0 and m > 1:
            mask[-1] = 1.0
        return constant_op.constant(mask)
    is_odd = math_ops.floormod(fft_length[-1], 2)
    return array_ops.concat(
        [[1.0], 2.0 * array_ops.ones([kept - 2 + is_odd]), array_ops.ones([1 - is_odd])], 0
    )


for _rank in (1, 2):
    _register_rfft(_rank)
