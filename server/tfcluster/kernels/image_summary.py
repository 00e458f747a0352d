"""Kernels of tf.summary.image and tf.summary.audio: PNG images (as TF's libpng writes them)
and 16-bit WAV clips in a Summary proto, made as TF's ImageSummary and AudioSummaryV2 make them
(floats scaled into 0..255 per image, non-finite pixels painted bad_color; samples times
32768, rounded, clipped)."""

from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np

from tfcluster.framework import tensor_util
from tfcluster.kernels import png_writing
from tfcluster.kernels.audio_wav import float_to_pcm16
from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.summary import _as_str, _string
from tfcluster.protos import summary_pb2, tensor_pb2

_ZERO_THRESHOLD = np.float32(1e-6)


def to_uint8(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """One [h, w, c] image as uint8, as TF's NormalizeFloatImage: over the finite pixels, all
    non-negative values scaled so the largest is 255, else centred on 128 with the largest
    magnitude at 127 away; a pixel with a non-finite channel is bad_color."""
    if image.dtype == np.uint8:
        return image
    values = image.astype(np.float32, copy=False)
    finite = np.all(np.isfinite(values), axis=-1)
    good = values[finite]
    lo = np.float32(good.min()) if good.size else np.float32(np.inf)
    hi = np.float32(good.max()) if good.size else np.float32(-np.inf)
    if lo < 0:
        max_val = max(abs(lo), abs(hi))
        scale = np.float32(0.0) if max_val < _ZERO_THRESHOLD else np.float32(127.0) / max_val
        offset = np.float32(128.0)
    else:
        scale = np.float32(0.0) if hi < _ZERO_THRESHOLD else np.float32(255.0) / hi
        offset = np.float32(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        out = (values * scale + offset).astype(np.uint8)
    out[~finite] = bad_color[: image.shape[-1]]
    return out


def png(image: np.ndarray) -> bytes:
    """The PNG TF's ImageSummary writes (libpng at zlib's default level: png_writing)."""
    return png_writing.encode(image, 6)


def _tags(base: str, n: int, max_outputs: int, kind: str) -> list[str]:
    if max_outputs == 1:
        return [f"{base}/{kind}"][:n]
    return [f"{base}/{kind}/{i}" for i in range(n)]


@kernel("ImageSummary", devices=CPU_ONLY)
def image_summary(node: Any, xp: Any) -> Any:
    max_images = int(node.attrs.get("max_images", 3))
    bad = node.attrs.get("bad_color")
    if isinstance(bad, tensor_pb2.TensorProto):
        bad = tensor_util.make_ndarray(bad)
    bad_color = np.asarray(bad if bad is not None else [255, 0, 0, 255], dtype=np.uint8).reshape(-1)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        s = image_summary_proto(_as_str(ins[0]), host_array(ins[1]), max_images, bad_color)
        return (_string(s.SerializeToString()),)

    return compute


def image_summary_proto(
    tag: str, images: np.ndarray, max_images: int, bad_color: np.ndarray
) -> summary_pb2.Summary:
    """The Summary of up to max_images images (ImageSummary and WriteImageSummary)."""
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise invalid(f"Tensor must be 4-D with last dim 1, 3, or 4, not {shape_str(images.shape)}")
    if bad_color.size < images.shape[-1]:
        raise invalid(
            f"bad_color must have at least {images.shape[-1]} elements, got {bad_color.size}"
        )
    n = min(images.shape[0], max_images)
    s = summary_pb2.Summary()
    for i, t in enumerate(_tags(tag, n, max_images, "image")):
        pixels = to_uint8(images[i], bad_color)
        v = s.value.add(tag=t)
        v.image.height, v.image.width, v.image.colorspace = pixels.shape
        v.image.encoded_image_string = png(pixels)
    return s


def wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """16-bit PCM WAV of [frames, channels] floats (TF's FloatToInt16Sample)."""
    ints = float_to_pcm16(samples)
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(ints.astype("<i2").tobytes())
    return buf.getvalue()


@kernel("AudioSummaryV2", devices=CPU_ONLY)
def audio_summary(node: Any, xp: Any) -> Any:
    max_outputs = int(node.attrs.get("max_outputs", 3))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        rate = np.asarray(host_array(ins[2]))
        s = audio_summary_proto(_as_str(ins[0]), host_array(ins[1]), rate, max_outputs)
        return (_string(s.SerializeToString()),)

    return compute


def audio_summary_proto(
    tag: str, clips: np.ndarray, rate: np.ndarray, max_outputs: int
) -> summary_pb2.Summary:
    """The Summary of up to max_outputs clips (AudioSummaryV2 and WriteAudioSummary)."""
    if rate.ndim != 0:
        raise invalid(f"sample_rate must be rank-0, got shape {shape_str(rate.shape)}")
    if clips.ndim not in (2, 3):
        raise invalid(f"Tensor must be 3-D or 2-D, got: {shape_str(clips.shape)}")
    if clips.ndim == 2:
        clips = clips[:, :, None]
    sample_rate = float(rate)
    if sample_rate <= 0:
        raise invalid(f"sample_rate must be > 0, got {sample_rate}")
    n = min(clips.shape[0], max_outputs)
    s = summary_pb2.Summary()
    for i, t in enumerate(_tags(tag, n, max_outputs, "audio")):
        v = s.value.add(tag=t)
        v.audio.sample_rate = sample_rate
        v.audio.num_channels = clips.shape[2]
        v.audio.length_frames = clips.shape[1]
        v.audio.encoded_audio_string = wav(clips[i], int(sample_rate))
        v.audio.content_type = "audio/wav"
    return s


@kernel("AudioSummary", devices=CPU_ONLY)
def audio_summary_v1(node: Any, xp: Any) -> Any:
    """The first AudioSummary: the sample rate is an attr."""
    max_outputs = int(node.attrs.get("max_outputs", 3))
    rate = np.asarray(float(node.attrs["sample_rate"]), dtype=np.float32)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        s = audio_summary_proto(_as_str(ins[0]), host_array(ins[1]), rate, max_outputs)
        return (_string(s.SerializeToString()),)

    return compute
