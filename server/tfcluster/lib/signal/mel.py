"""Mel filterbanks and MFCCs (tf.signal.linear_to_mel_weight_matrix,
mfccs_from_log_mel_spectrograms) as TF 1.15 defines them (HTK's mel scale:
1127 ln(1 + f / 700))."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.lib.signal import dct as dct_lib
from tfcluster.ops import array_ops, constant_op, math_ops

_BREAK_HZ = 700.0
_HIGH_Q = 1127.0


def _validate(
    num_mel_bins: Any, sample_rate: Any, lower: Any, upper: Any, dtype: dtypes.DType
) -> None:
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {lower:.1f} >= upper_edge_hertz {upper:.1f}")
    if upper > sample_rate / 2:
        raise ValueError(
            "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
            f"Got: {upper} for sample_rate: {sample_rate}"
        )
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(
    num_mel_bins: int = 20,
    num_spectrogram_bins: int = 129,
    sample_rate: Any = 8000,
    lower_edge_hertz: float = 125.0,
    upper_edge_hertz: float = 3800.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """[num_spectrogram_bins, num_mel_bins]: triangular mel filters over the linear-frequency
    bins of an RFFT (bin 0, DC, gets no weight)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, Tensor):
            known = tensor_util.constant_value(sample_rate)
            if known is None:
                raise ValueError(
                    "`sample_rate` was a non-constant Tensor. Must be a Python float or a "
                    "constant Tensor."
                )
            sample_rate = known
        _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
        # Every argument is known when the graph is built, so the matrix is one constant
        # (TF computes it with some thirty small ops on every run).
        weights = _mel_weights(
            int(num_mel_bins),
            int(num_spectrogram_bins),
            float(sample_rate),
            float(lower_edge_hertz),
            float(upper_edge_hertz),
            np.dtype(dtype.as_numpy_dtype),
        )
        return constant_op.constant(weights, dtype=dtype, name=scope)


def _mel_weights(
    num_mel_bins: int,
    num_spectrogram_bins: int,
    sample_rate: float,
    lower_hz: float,
    upper_hz: float,
    dtype: np.dtype[Any],
) -> np.ndarray:
    """Triangles rising from each band's lower edge to its centre and falling to its upper
    edge, over the mel value of each linear-frequency bin, computed in `dtype` as TF does."""

    def to_mel(hz: Any) -> Any:
        return (_HIGH_Q * np.log(1.0 + hz / dtype.type(_BREAK_HZ))).astype(dtype)

    linear = np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins).astype(dtype)[1:]
    bins_mel = to_mel(linear)[:, None]
    lower, upper = to_mel(np.array([lower_hz, upper_hz], dtype))
    edges = np.linspace(lower, upper, num_mel_bins + 2).astype(dtype)
    left, centre, right = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    with np.errstate(divide="ignore", invalid="ignore"):
        rising = (bins_mel - left) / (centre - left)
        falling = (right - bins_mel) / (right - centre)
    weights = np.maximum(0.0, np.minimum(rising, falling)).astype(dtype)
    return np.pad(weights, [[1, 0], [0, 0]])


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any, name: str | None = None) -> Tensor:
    """MFCCs: the orthonormal type-II DCT of log-mel spectrograms along their last axis."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        x = convert_to_tensor(log_mel_spectrograms, dtype=dtypes.float32)
        known = None if not x.shape.ndims else x.shape.as_list()[-1]
        if known is not None:
            if known == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {x}")
            bins: Any = known
        else:
            bins = array_ops.shape(x)[-1]
        spectrum = dct_lib.dct(x, type=2)
        return spectrum * math_ops.rsqrt(math_ops.cast(bins, dtypes.float32) * 2.0)
