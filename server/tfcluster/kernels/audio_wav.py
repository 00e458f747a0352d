"""DecodeWav / EncodeWav: 16-bit PCM WAV through Python's wave module, with TF's sample
conversion (int16 / 2**15, and back rounded half away from zero and clamped)."""

from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel


def _wav_bytes(value: Any) -> bytes:
    item = np.asarray(value, dtype=object).reshape(-1)
    if item.size != 1:
        raise invalid(f"contents must be scalar, got shape {list(np.shape(value))}")
    raw = item[0]
    return raw.encode() if isinstance(raw, str) else bytes(raw)


def _read_pcm16(data: bytes) -> tuple[np.ndarray, int]:
    if data[:4] != b"RIFF":
        raise invalid(f"Header mismatch: Expected RIFF but found {data[:4].decode('latin-1')}")
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            if wav.getsampwidth() != 2:
                raise invalid(
                    f"Can only read 16-bit WAV files, but received {8 * wav.getsampwidth()}"
                )
            channels, rate = wav.getnchannels(), wav.getframerate()
            frames = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as e:
        raise invalid(f"Bad WAV file: {e}") from e
    samples = np.frombuffer(frames, dtype="<i2")
    samples = samples[: len(samples) // channels * channels].reshape(-1, channels)
    return samples.astype(np.float32) / np.float32(1 << 15), rate


@kernel("DecodeWav", devices=CPU_ONLY)
def decode_wav(node: Any, xp: Any) -> Compute:
    want_channels = int(node.attrs.get("desired_channels", -1))
    want_samples = int(node.attrs.get("desired_samples", -1))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        audio, rate = _read_pcm16(_wav_bytes(ins[0]))
        samples, channels = audio.shape
        if want_channels >= 0:
            # Extra channels repeat the file's last one, as TF's decoder does.
            audio = audio[:, np.minimum(np.arange(want_channels), channels - 1)]
        if want_samples >= 0:
            out = np.zeros((want_samples, audio.shape[1]), np.float32)
            keep = min(samples, want_samples)
            out[:keep] = audio[:keep]
            audio = out
        return (np.ascontiguousarray(audio, dtype=np.float32), np.asarray(rate, np.int32))

    return compute


def float_to_pcm16(samples: np.ndarray) -> np.ndarray:
    """TF's FloatToInt16Sample: roundf(sample * 32768) (halves away from zero), clamped."""
    scaled = samples.astype(np.float32) * np.float32(1 << 15)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + np.float32(0.5))
    return np.clip(rounded, -(1 << 15), (1 << 15) - 1)


@kernel("EncodeWav", devices=CPU_ONLY)
def encode_wav(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        audio = np.asarray(ins[0], dtype=np.float32)
        if audio.ndim != 2:
            raise invalid(f"audio must be 2-dimensional {list(audio.shape)}")
        rate = int(np.asarray(ins[1]))
        pcm = float_to_pcm16(audio)
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as wav:
            wav.setnchannels(audio.shape[1])
            wav.setsampwidth(2)
            wav.setframerate(rate)
            wav.writeframes(pcm.astype("<i2").tobytes())
        return (np.asarray(buffer.getvalue(), dtype=object),)

    return compute
