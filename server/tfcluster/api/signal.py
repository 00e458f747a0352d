"""tf.signal"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
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
