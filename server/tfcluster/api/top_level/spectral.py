"""Top-level FFT names of TF 1.15 (tf.fft, tf.ifft2d, ...; the real forms live only in
tf.signal and tf.spectral)."""

from tfcluster.ops.spectral_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d

__all__ = ["fft", "fft2d", "fft3d", "ifft", "ifft2d", "ifft3d"]
