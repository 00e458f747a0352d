"""Fast Fourier transforms over xp (numpy.fft and cupy.fft share the API): FFT/IFFT and their
2D/3D forms over the innermost dimensions, and the real forms RFFT/IRFFT (1D-3D) that take
`fft_length` as TF's kernels do: the input is cropped to it (never padded: the Python
wrappers pad), and IRFFT reads fft_length[-1] // 2 + 1 values of the last dimension."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels._window import over_batch
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _batched(xp: Any, x: Any, rank: int, fn: Callable[[Any], Any]) -> Any:
    """fn over x's innermost `rank` dimensions, the transforms of a large batch spread over
    the CPU's cores (numpy's FFT releases the GIL)."""
    outer = x.shape[: x.ndim - rank]
    count = int(np.prod(outer, dtype=np.int64))
    if count < 2:
        return fn(x)
    flat = x.reshape((count, *x.shape[x.ndim - rank :]))
    parts = over_batch(xp, count, int(flat.nbytes), lambda rows: fn(flat[rows]))
    out = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=0)
    return out.reshape((*outer, *out.shape[1:]))


def _check_rank(x: Any, rank: int) -> tuple[int, ...]:
    if x.ndim < rank:
        raise u.invalid(f"Input must have rank of at least {rank} but got: {u.shape_str(x.shape)}")
    return tuple(range(-rank, 0))


def _complex(rank: int, inverse: bool) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node, "Tcomplex")
        transform = xp.fft.ifftn if inverse else xp.fft.fftn

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = ins[0]
            axes = _check_rank(x, rank)
            if x.size == 0:
                return (xp.zeros(x.shape, dtype),)
            out = _batched(xp, x, rank, lambda v: transform(v, axes=axes))
            return (out.astype(dtype, copy=False),)

        return compute

    return factory


def _fft_shape(value: Any, rank: int) -> list[int]:
    lengths = u.host(value)
    if lengths.shape != (rank,):
        raise u.invalid(
            f"fft_length must be a vector of {rank} elements, got shape "
            f"{u.shape_str(lengths.shape)}"
        )
    return [int(n) for n in lengths]


def _cropped(x: Any, wanted: list[int]) -> Any:
    """x with its innermost dimensions cut to `wanted` (TF's kernels refuse shorter ones)."""
    inner = x.shape[x.ndim - len(wanted) :]
    for i, (have, want) in enumerate(zip(inner, wanted)):
        if have < want or want < 0:
            # TF prints the required length as an unsigned number (a negative one wraps).
            raise u.invalid(
                f"Input dimension {x.ndim - len(wanted) + i} must have length of at least "
                f"{want % 2**64} but got: {have}"
            )
    index = (Ellipsis, *(slice(0, n) for n in wanted))
    return x[index]


def _real(rank: int, inverse: bool) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        out_dtype = np.dtype(np.float32 if inverse else np.complex64)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, fft_length = ins
            axes = _check_rank(x, rank)
            lengths = _fft_shape(fft_length, rank)
            # A zero length keeps no frequencies (TF's kernels; its wrappers never pass one).
            half = lengths[-1] // 2 + 1 if lengths[-1] else 0
            if inverse:
                out_inner, wanted = lengths, [*lengths[:-1], half]
            else:
                out_inner, wanted = [*lengths[:-1], half], lengths
            out_shape = (*x.shape[: x.ndim - rank], *out_inner)
            if x.size:
                x = _cropped(x, wanted)
            if x.size == 0 or 0 in out_shape:
                # An empty input gives zeros of the output shape, as in TF (nothing to crop).
                return (xp.zeros(out_shape, out_dtype),)
            transform = xp.fft.irfftn if inverse else xp.fft.rfftn
            out = _batched(xp, x, rank, lambda v: transform(v, s=lengths, axes=axes))
            return (out.astype(out_dtype, copy=False),)

        return compute

    return factory


for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    kernel(f"FFT{_suffix}")(_complex(_rank, inverse=False))
    kernel(f"IFFT{_suffix}")(_complex(_rank, inverse=True))
    kernel(f"RFFT{_suffix}", host=(1,))(_real(_rank, inverse=False))
    kernel(f"IRFFT{_suffix}", host=(1,))(_real(_rank, inverse=True))
