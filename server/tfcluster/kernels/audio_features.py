"""AudioSpectrogram and Mfcc with TF 1.15's arithmetic: a periodic Hann window and real FFT in
float64 (TF's Spectrogram class), squared magnitudes stored as float32 (and their float32
square root); MFCCs from TF's HTK-style triangular mel filterbank over sqrt of the squared
spectrum, log floored at 1e-12, and its DCT-II table, in float64 until the float32 output.
Also the first AudioSummary (sample rate as an attr), which writes what AudioSummaryV2 does."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.ops.audio_features import next_power_of_two, spectrogram_frames
from tfcluster.runtime import thread_budget

_FILTERBANK_FLOOR = 1e-12


@kernel("AudioSpectrogram", devices=CPU_ONLY)
def audio_spectrogram(node: Any, xp: Any) -> Any:
    window = int(node.attrs["window_size"])
    stride = int(node.attrs["stride"])
    squared = bool(node.attrs.get("magnitude_squared", False))
    fft_length = next_power_of_two(window)
    bins = fft_length // 2 + 1
    # TF's GetPeriodicHann, in double.
    hann = 0.5 - 0.5 * np.cos(2.0 * math.pi * np.arange(window) / window)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        audio = host_array(ins[0])
        if audio.ndim != 2:
            raise invalid(f"input must be 2-dimensional{shape_str(audio.shape)}")
        if window < 2 or stride < 1:
            raise invalid(
                f"Spectrogram initialization failed for window size {window} and stride {stride}"
            )
        samples, channels = audio.shape
        count = spectrogram_frames(samples, window, stride)
        # TF's kernel feeds the channels one after another through ONE streaming Spectrogram,
        # so channel c's windows are those of the channels' concatenation that end inside
        # channel c (a later channel's first windows reach back into the one before), and a
        # channel whose count differs from the first's fails.
        stream = np.ascontiguousarray(audio.T, dtype=np.float32).reshape(-1)
        ends = np.arange(window, stream.size + 1, stride)
        owner = (ends - 1) // max(samples, 1)
        for c in range(channels):
            got = int(np.count_nonzero(owner == c))
            if got != count:
                raise invalid(
                    f"Spectrogram size calculation failed: Expected height {count} but got {got}"
                )
        out = np.zeros((channels, count, bins), np.float32)
        if count:
            starts = (ends - window).reshape(channels, count)
            framed = stream[starts[..., None] + np.arange(window)]
            spectrum = np.fft.rfft(framed.astype(np.float64) * hann, n=fft_length, axis=-1)
            power = (spectrum.real * spectrum.real + spectrum.imag * spectrum.imag).astype(
                np.float32
            )
            out = power if squared else np.sqrt(power)
        return (np.ascontiguousarray(out, np.float32),)

    return compute


def _freq_to_mel(freq: Any) -> Any:
    return 1127.0 * np.log1p(np.asarray(freq, np.float64) / 700.0)


@functools.lru_cache(maxsize=64)
def _mfcc_tables(
    bins: int, rate: int, channels: int, lower: float, upper: float, coefficients: int
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(filterbank [bins, channels], dct [channels, coefficients], end_index), as TF's
    MfccMelFilterbank::Initialize and MfccDct::Initialize make them; None where TF's
    initialization fails."""
    if channels < 1 or rate <= 0 or bins < 2 or lower < 0 or upper <= lower:
        return None
    if coefficients < 1 or coefficients > channels:
        return None
    mel_low, mel_high = float(_freq_to_mel(lower)), float(_freq_to_mel(upper))
    spacing = (mel_high - mel_low) / float(channels + 1)
    centers = mel_low + spacing * np.arange(1, channels + 2, dtype=np.float64)
    hz_per_bin = 0.5 * rate / float(bins - 1)
    start = int(1.5 + lower / hz_per_bin)
    end = int(upper / hz_per_bin)
    mels = _freq_to_mel(np.arange(bins) * hz_per_bin)
    bank = np.zeros((bins, channels), np.float64)
    for i in range(max(start, 0), min(end, bins - 1) + 1):
        # The channel whose right slope bin i lies on (-1: left of the first centre).
        band = int(np.searchsorted(centers[:channels], mels[i], side="left")) - 1
        if band >= 0:
            weight = (centers[band + 1] - mels[i]) / (centers[band + 1] - centers[band])
            bank[i, band] += weight
        else:
            weight = (centers[0] - mels[i]) / (centers[0] - mel_low)
        if band + 1 < channels:
            bank[i, band + 1] += 1.0 - weight
    pi = math.atan(1) * 4
    arg = pi / channels
    dct = math.sqrt(2.0 / channels) * np.cos(
        np.arange(coefficients)[None, :] * arg * (np.arange(channels)[:, None] + 0.5)
    )
    return bank, dct, end


@kernel("Mfcc", devices=CPU_ONLY)
def mfcc(node: Any, xp: Any) -> Any:
    upper = float(node.attrs.get("upper_frequency_limit", 4000.0))
    lower = float(node.attrs.get("lower_frequency_limit", 20.0))
    channels = int(node.attrs.get("filterbank_channel_count", 40))
    coefficients = int(node.attrs.get("dct_coefficient_count", 13))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        spectrogram = host_array(ins[0])
        rate_arr = np.asarray(host_array(ins[1]))
        if spectrogram.ndim != 3:
            raise invalid(f"spectrogram must be 3-dimensional{shape_str(spectrogram.shape)}")
        if rate_arr.ndim != 0:
            raise invalid(
                "Input sample_rate should be a scalar tensor, got "
                f"{shape_str(rate_arr.shape)} instead."
            )
        rate = int(rate_arr)
        outer, frames, bins = spectrogram.shape
        tables = _mfcc_tables(bins, rate, channels, lower, upper, coefficients)
        if tables is None:
            raise invalid(
                f"Mfcc initialization failed for channel count {bins}, sample rate {rate} and "
                f"filterbank_channel_count {channels}"
            )
        bank, dct, end = tables
        out = np.zeros((outer, frames, coefficients), np.float32)
        if bins > end and spectrogram.size:
            # Below TF's filterbank end index its filterbank gives nothing: MFCCs stay zero.
            magnitudes = np.sqrt(spectrogram.astype(np.float64))
            # Products this small lose more to BLAS's thread start-up than they gain.
            with thread_budget.blas_threads(1):
                energies = np.maximum(magnitudes @ bank, _FILTERBANK_FLOOR)
                out = (np.log(energies) @ dct).astype(np.float32)
        return (out,)

    return compute
