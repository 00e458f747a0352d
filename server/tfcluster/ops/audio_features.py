"""Audio feature ops of TF 1.15's gen_audio_ops (the speech_commands tutorial's front end):
AudioSpectrogram, Mfcc, and the first AudioSummary (sample rate as an attr). Only tf.raw_ops
builds them, as in TF: their shape inference is TF's shape functions'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import shape_list, with_rank
from tfcluster.ops.op_util import Outputs


def next_power_of_two(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


def spectrogram_frames(samples: int, window_size: int, stride: int) -> int:
    """How many windows AudioSpectrogram takes from `samples` (none when too short)."""
    if samples < window_size:
        return 0
    return 1 + (samples - window_size) // stride


def _spectrogram_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dims = shape_list(with_rank(inputs[0].shape, 2, "input"))
    samples, channels = dims if dims is not None else (None, None)
    window, stride = int(attrs["window_size"]), int(attrs["stride"])
    length = None if samples is None else spectrogram_frames(samples, window, stride)
    bins = next_power_of_two(window) // 2 + 1
    return [(dtypes.float32, TensorShape([channels, length, bins]))]


def _mfcc_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dims = shape_list(with_rank(inputs[0].shape, 3, "spectrogram"))
    with_rank(inputs[1].shape, 0, "sample_rate")
    outer = dims[:2] if dims is not None else [None, None]
    count = int(attrs.get("dct_coefficient_count", 13))
    return [(dtypes.float32, TensorShape([*outer, count]))]


def _summary_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank(inputs[0].shape, 0, "tag")
    return [(dtypes.string, TensorShape([]))]


op_def_registry.register("AudioSpectrogram", _spectrogram_infer)
op_def_registry.register("Mfcc", _mfcc_infer)
op_def_registry.register("AudioSummary", _summary_infer)
# TF registers no gradient for these.
OP_TYPES = ("AudioSpectrogram", "Mfcc", "AudioSummary")
