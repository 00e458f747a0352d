"""Cases of the FFT ops (tf.signal / tf.spectral / top-level tf.fft), run on TensorFlow 1.15 by
record_spectral.py and on tfcluster by tests/unit/test_tf_reference_spectral.py: values for
complex64 and complex128, fft_length inferred, shorter (cropped) and longer (zero-padded),
static and run-time shapes, gradients as TF registers them, and the errors of bad input."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_spectral by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

REAL = values((2, 3, 8), seed=40).astype(np.float32)
ODD = values((2, 7), seed=41).astype(np.float32)
CPLX = (values((2, 3, 4), seed=42) + 1j * values((2, 3, 4), seed=43)).astype(np.complex64)
CPLX128 = (values((3, 5), seed=44) + 1j * values((3, 5), seed=45)).astype(np.complex128)
HALF = (values((2, 4, 5), seed=46) + 1j * values((2, 4, 5), seed=47)).astype(np.complex64)


def _seen(tf: Any, z: Any) -> Any:
    """A real tensor that depends on both parts of z (TF takes gradients of real losses only
    unless grad_ys is given)."""
    return tf.real(z) - 0.5 * tf.imag(z)


@add("fft_ifft_complex64", {"x": CPLX}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _fft(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "fft": tf.signal.fft(t["x"]),
        "ifft": tf.signal.ifft(t["x"]),
        "seen": _seen(tf, tf.signal.fft(t["x"])),
        "top": tf.fft(t["x"]),
        "spectral": tf.spectral.ifft(t["x"], name="inv"),
    }


@add("ifft_gradient", {"x": CPLX}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _ifft(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"seen": _seen(tf, tf.ifft(t["x"]))}


@add("fft2d_gradient", {"x": CPLX}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _fft2d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.fft2d(t["x"])
    return {"y": y, "inv": tf.ifft2d(t["x"]), "seen": _seen(tf, y)}


@add("ifft2d_gradient", {"x": CPLX}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _ifft2d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"seen": _seen(tf, tf.spectral.ifft2d(t["x"]))}


@add("fft3d_gradient", {"x": CPLX}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _fft3d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.fft3d(t["x"])
    return {"y": y, "inv": tf.signal.ifft3d(t["x"]), "seen": _seen(tf, y)}


@add("ifft3d_gradient", {"x": CPLX}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _ifft3d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"seen": _seen(tf, tf.ifft3d(t["x"]))}


@add("fft_complex128", {"x": CPLX128}, grad=("seen", ("x",)), rtol=1e-10, atol=1e-12)
def _fft128(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.fft(t["x"])
    return {"y": y, "inv": tf.signal.ifft2d(t["x"]), "seen": _seen(tf, y)}


@add("fft_run_time_shapes", {"x": CPLX}, unknown_shapes=True, grad=("seen", ("x",)), rtol=1e-4)
def _fft_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.fft2d(t["x"])
    return {"y": y, "inv": tf.signal.ifft(t["x"]), "seen": _seen(tf, y)}


@add("rfft_irfft_inferred_length", {"x": REAL}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _rfft(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.rfft(t["x"])
    back = tf.signal.irfft(y)
    return {"y": y, "back": back, "odd": tf.spectral.rfft(t["x"][..., :7]), "seen": _seen(tf, y)}


@add("rfft_odd_length_gradient", {"x": ODD}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _rfft_odd(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"seen": _seen(tf, tf.signal.rfft(t["x"]))}


@add("rfft_fft_length_crops_and_pads", {"x": REAL}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _rfft_lengths(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "crop": tf.signal.rfft(t["x"], fft_length=[5]),
        "pad": tf.signal.rfft(t["x"], fft_length=[11]),
        "pad_even": tf.signal.rfft(t["x"], fft_length=tf.constant([12])),
        "seen": _seen(tf, tf.signal.rfft(t["x"], fft_length=[11])),
    }


@add("irfft_gradient", {"x": HALF}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _irfft(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.irfft(t["x"])}


@add("irfft_odd_length_gradient", {"x": HALF}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _irfft_odd(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.irfft(t["x"], fft_length=[9]), "short": tf.signal.irfft(t["x"], [6])}


@add("irfft_pads_short_input", {"x": HALF}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _irfft_pad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.irfft(t["x"], fft_length=[14])}


@add("rfft2d_gradient", {"x": REAL}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-4)
def _rfft2d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.rfft2d(t["x"])
    back = tf.signal.irfft2d(y)
    return {"y": y, "back": back, "len": tf.spectral.rfft2d(t["x"], [4, 6]), "seen": _seen(tf, y)}


@add("irfft2d_gradient", {"x": HALF}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _irfft2d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.irfft2d(t["x"]), "odd": tf.signal.irfft2d(t["x"], [3, 7])}


@add("rfft3d_irfft3d", {"x": REAL})
def _rfft3d(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.rfft3d(t["x"])
    return {"y": y, "back": tf.signal.irfft3d(y), "len": tf.spectral.irfft3d(y, [2, 2, 5])}


@add("rfft_run_time_shapes", {"x": REAL, "h": HALF}, unknown_shapes=True, rtol=1e-4, atol=1e-5)
def _rfft_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "r": tf.signal.rfft(t["x"]),
        "pad": tf.signal.rfft2d(t["x"], [4, 9]),
        "ir_pad": tf.signal.irfft(t["h"], [12]),
    }


@add("rfft_run_time_gradient", {"x": REAL}, unknown_shapes=True, grad=("seen", ("x",)), rtol=1e-4)
def _rfft_dynamic_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"seen": _seen(tf, tf.signal.rfft(t["x"]))}


@add("irfft_of_unknown_rank_fails_at_build", {"x": HALF}, unknown_shapes=True)
def _irfft2d_dynamic_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.irfft2d(t["x"])}


@add("fftshift_ifftshift", {"x": values((3, 5), seed=48).astype(np.float32)})
def _shift(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "all": tf.signal.fftshift(t["x"]),
        "axis": tf.signal.fftshift(t["x"], axes=1),
        "inv": tf.signal.ifftshift(t["x"]),
        "inv_axes": tf.signal.ifftshift(t["x"], axes=[0]),
    }


@add("rfft_of_float64_fails_at_build", {"x": values((4,), seed=49)})
def _rfft_f64(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.rfft(t["x"])}


@add("fft_of_float32_fails_at_build", {"x": REAL})
def _fft_real(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.fft(t["x"])}


@add("fft2d_of_a_vector_fails_at_build", {"x": CPLX[0, 0]})
def _fft2d_vector(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.fft2d(t["x"])}


@add("rfft2d_of_a_vector_fails_at_build", {"x": REAL[0, 0]})
def _rfft2d_vector(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.rfft2d(t["x"])}


@add("rfft_with_two_lengths_fails_at_build", {"x": REAL})
def _rfft_two(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.rfft(t["x"], fft_length=[4, 4])}


@add("rfft_float_length_fails_at_build", {"x": REAL})
def _rfft_float_len(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.rfft(t["x"], fft_length=[4.0])}


@add("rfft_negative_length_fails_at_run", {"x": REAL})
def _rfft_negative(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.rfft(t["x"], fft_length=[-2])}


@add("fft_of_a_scalar_fails_at_run", {"x": np.complex64(1 + 2j)}, unknown_shapes=True)
def _fft_scalar(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.fft(t["x"])}


@add("complex_loss_needs_grad_ys", {"x": CPLX}, grad=("y", ("x",)))
def _complex_loss(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.fft(t["x"])}


@add("fft_of_empty_inner_dimension", {"x": np.zeros((2, 0), np.complex64)})
def _fft_empty(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.fft(t["x"]), "r": tf.signal.rfft(tf.real(t["x"]))}
