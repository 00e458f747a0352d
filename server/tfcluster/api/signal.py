"""tf.signal"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.signal.dct import dct, idct
from tfcluster.lib.signal.framing import frame, overlap_and_add
from tfcluster.lib.signal.mel import linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms
from tfcluster.lib.signal.stft import inverse_stft, inverse_stft_window_fn, stft
from tfcluster.lib.signal.windows import hamming_window, hann_window
from tfcluster.ops.spectral_ops import (
    fft,
    fft2d,
    fft3d,
    fftshift,
    ifft,
    ifft2d,
    ifft3d,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)

__getattr__ = _unimplemented.module_getattr("signal")
