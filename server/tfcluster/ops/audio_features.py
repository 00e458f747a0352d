"""Audio feature ops of TF 1.15's gen_audio_ops (the speech_commands tutorial's front end):
AudioSpectrogram, Mfcc, and the first AudioSummary (sample rate as an attr), with TF's shape
functions. tf.raw_ops builds them, and this module is what `tensorflow.python.ops.gen_audio_ops`
is on tfcluster (audio_spectrogram, mfcc, decode_wav, encode_wav)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.audio_ops import decode_wav, encode_wav
from tfcluster.ops.infer_util import shape_list, with_rank
from tfcluster.ops.op_util import Outputs, make_op


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


op_def_registry.register("AudioSpectrogram", _spectrogram_infer)
op_def_registry.register("Mfcc", _mfcc_infer)
# TF registers no gradient for these (AudioSummary, the first audio summary, is summary_ops').
OP_TYPES = ("AudioSpectrogram", "Mfcc")


def audio_spectrogram(
    input: Any,
    window_size: int,
    stride: int,
    magnitude_squared: bool = False,
    name: str | None = None,
) -> Tensor:
    """[channels, frames, fft_length / 2 + 1] magnitudes (or their squares) of Hann-windowed
    frames of float audio [samples, channels]."""
    with name_scope(name, "AudioSpectrogram", [input]) as scope:
        audio = convert_to_tensor(input, dtype=dtypes.float32, name="input")
        attrs = {
            "window_size": int(window_size),
            "stride": int(stride),
            "magnitude_squared": bool(magnitude_squared),
        }
        return make_op("AudioSpectrogram", [audio], attrs, name=scope).outputs[0]


def mfcc(
    spectrogram: Any,
    sample_rate: Any,
    upper_frequency_limit: float = 4000,
    lower_frequency_limit: float = 20,
    filterbank_channel_count: int = 40,
    dct_coefficient_count: int = 13,
    name: str | None = None,
) -> Tensor:
    """Mel-frequency cepstral coefficients of a squared-magnitude spectrogram."""
    with name_scope(name, "Mfcc", [spectrogram, sample_rate]) as scope:
        spec = convert_to_tensor(spectrogram, dtype=dtypes.float32, name="spectrogram")
        rate = convert_to_tensor(sample_rate, dtype=dtypes.int32, name="sample_rate")
        attrs = {
            "upper_frequency_limit": float(upper_frequency_limit),
            "lower_frequency_limit": float(lower_frequency_limit),
            "filterbank_channel_count": int(filterbank_channel_count),
            "dct_coefficient_count": int(dct_coefficient_count),
        }
        return make_op("Mfcc", [spec, rate], attrs, name=scope).outputs[0]


__all__ = ["audio_spectrogram", "decode_wav", "encode_wav", "mfcc"]
