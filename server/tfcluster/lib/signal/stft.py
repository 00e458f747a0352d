"""Short-time Fourier transforms (tf.signal.stft, inverse_stft, inverse_stft_window_fn) as TF
1.15 defines them: frames, a window, and an RFFT of fft_length points per frame (by default the
smallest power of two that holds a frame)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.lib.signal import framing, windows
from tfcluster.ops import array_ops, constant_op, math_ops, spectral_ops

WindowFn = Callable[..., Tensor]


def _enclosing_power_of_two(value: Tensor) -> Tensor:
    known = tensor_util.constant_value(value)
    if known is not None:
        return constant_op.constant(int(2 ** np.ceil(np.log2(float(known)))), value.dtype)
    exponent = math_ops.ceil(math_ops.log(math_ops.cast(value, dtypes.float32)) / np.log(2.0))
    return math_ops.cast(math_ops.pow(2.0, exponent), value.dtype)


def _scalar(value: Any, name: str) -> Tensor:
    t = convert_to_tensor(value, name=name)
    t.shape.assert_has_rank(0)
    return t


def stft(
    signals: Any,
    frame_length: Any,
    frame_step: Any,
    fft_length: Any = None,
    window_fn: WindowFn | None = windows.hann_window,
    pad_end: bool = False,
    name: str | None = None,
) -> Tensor:
    """[..., samples] float32 -> [..., frames, fft_length // 2 + 1] complex64."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        x = convert_to_tensor(signals, name="signals")
        x.shape.with_rank_at_least(1)
        length = _scalar(frame_length, "frame_length")
        step = _scalar(frame_step, "frame_step")
        points = (
            _enclosing_power_of_two(length)
            if fft_length is None
            else convert_to_tensor(fft_length, name="fft_length")
        )
        frames = framing.frame(x, length, step, pad_end=pad_end)
        if window_fn is not None:
            frames = frames * window_fn(length, dtype=frames.dtype)
        return spectral_ops.rfft(frames, [points])


def inverse_stft_window_fn(
    frame_step: Any, forward_window_fn: WindowFn = windows.hann_window, name: str | None = None
) -> WindowFn:
    """A window_fn for inverse_stft that undoes forward_window_fn's overlap: the forward window
    divided by the sum of the squared windows that overlap each sample."""
    with name_scope(name, "inverse_stft_window_fn", []):
        step = _scalar(frame_step, "frame_step")

    def window_fn(frame_length: Any, dtype: Any) -> Tensor:
        with name_scope(name, "inverse_stft_window_fn", []):
            length = _scalar(frame_length, "frame_length")
            forward = forward_window_fn(length, dtype=dtype)
            squared = math_ops.square(forward)
            overlaps = -(-length // step)
            squared = array_ops.pad(squared, [(0, overlaps * step - length)])
            per_offset = math_ops.reduce_sum(
                array_ops.reshape(squared, [overlaps, step]), 0, keepdims=True
            )
            denominator = array_ops.reshape(
                array_ops.tile(per_offset, [overlaps, 1]), [overlaps * step]
            )
            return forward / denominator[:length]

    return window_fn


def inverse_stft(
    stfts: Any,
    frame_length: Any,
    frame_step: Any,
    fft_length: Any = None,
    window_fn: WindowFn | None = windows.hann_window,
    name: str | None = None,
) -> Tensor:
    """[..., frames, fft_length // 2 + 1] complex64 -> [..., samples] float32: IRFFT of each
    frame, cut or zero-padded to frame_length, windowed, then overlapped and added."""
    with name_scope(name, "inverse_stft", [stfts]):
        spectra = convert_to_tensor(stfts, name="stfts")
        spectra.shape.with_rank_at_least(2)
        length = _scalar(frame_length, "frame_length")
        step = _scalar(frame_step, "frame_step")
        if fft_length is None:
            points = _enclosing_power_of_two(length)
        else:
            points = _scalar(fft_length, "fft_length")
        frames = _to_length(spectral_ops.irfft(spectra, [points]), length)
        if window_fn is not None:
            frames = frames * window_fn(length, dtype=spectra.dtype.real_dtype)
        return framing.overlap_and_add(frames, step)


def _to_length(frames: Tensor, length: Tensor) -> Tensor:
    """frames cut or zero-padded on their last dimension to `length` samples."""
    known = tensor_util.constant_value(length)
    have = None if frames.shape.ndims is None else frames.shape.as_list()[-1]
    if known is None or have is None:
        frames = frames[..., :length]
        rank = array_ops.rank(frames)
        missing = math_ops.maximum(0, length - array_ops.shape(frames)[-1])
        pads = array_ops.concat(
            [array_ops.zeros([rank - 1, 2], dtype=length.dtype), [[0, missing]]], 0
        )
        frames = array_ops.pad(frames, pads)
    elif have > int(known):
        frames = frames[..., : int(known)]
    elif have < int(known):
        tail = [[0, 0]] * (frames.shape.ndims - 1) + [[0, int(known) - have]]  # type: ignore[operator]
        frames = array_ops.pad(frames, tail)
    if known is not None and frames.shape.ndims is not None:
        frames.set_shape([None] * (frames.shape.ndims - 1) + [int(known)])
    return frames
