"""tf.spectral (TF 1.15's older name for the FFT part of tf.signal)"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.signal.dct import dct, idct
from tfcluster.ops.spectral_ops import (
    fft,
    fft2d,
    fft3d,
    ifft,
    ifft2d,
    ifft3d,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)

__getattr__ = _unimplemented.module_getattr("spectral")
