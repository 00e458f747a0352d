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


# ---- tf.signal's library: frames, windows, STFTs, mel filterbanks, MFCCs, DCTs -------------
AUDIO = values((2, 50), seed=50).astype(np.float32)
FRAMES = values((2, 4, 6), seed=51).astype(np.float32)


# frame() gathers the frames in one GatherV2 where TF slices, reshapes and gathers: its result is
# not named frame/Reshape_4 as TF's is (names=False).
@add("frame", {"x": REAL}, grad=("y", ("x",)), names=False)
def _frame(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.signal.frame(t["x"], 3, 2),
        "pad_end": tf.signal.frame(t["x"], 3, 2, pad_end=True, pad_value=-1.0),
        "axis": tf.signal.frame(t["x"], 2, 1, axis=1),
        "axis_neg": tf.signal.frame(t["x"], 2, 2, axis=-2, pad_end=True),
        "none": tf.signal.frame(t["x"], 9, 1),
    }


@add("frame_run_time_shapes", {"x": REAL}, unknown_shapes=True, grad=("y", ("x",)), names=False)
def _frame_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.signal.frame(t["x"], 3, 2),
        "pad_end": tf.signal.frame(t["x"], 3, 2, pad_end=True),
        "axis": tf.signal.frame(t["x"], 2, 1, axis=1),
    }


@add("frame_of_a_scalar_fails_at_build", {"x": np.float32(1.0)})
def _frame_scalar(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.frame(t["x"], 3, 2)}


@add("overlap_and_add", {"x": FRAMES}, grad=("y", ("x",)))
def _ola(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.signal.overlap_and_add(t["x"], 2),
        "touching": tf.signal.overlap_and_add(t["x"], 6),
        "gaps": tf.signal.overlap_and_add(t["x"], 7),
        "odd": tf.signal.overlap_and_add(t["x"][0], 4),
    }


@add("overlap_and_add_run_time_shapes", {"x": FRAMES}, unknown_shapes=True, grad=("y", ("x",)))
def _ola_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.overlap_and_add(t["x"], 4)}


@add("overlap_and_add_float_step_fails_at_build", {"x": FRAMES})
def _ola_float(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.overlap_and_add(t["x"], 2.0)}


@add("windows", {"n": np.int32(7)})
def _windows(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "hann": tf.signal.hann_window(8),
        "hann_symmetric": tf.signal.hann_window(8, periodic=False),
        "hann_odd": tf.signal.hann_window(5),
        "hann_one": tf.signal.hann_window(1),
        "hamming": tf.signal.hamming_window(10, dtype=tf.float64),
        "hamming_symmetric": tf.signal.hamming_window(6, periodic=False),
        "hann_tensor": tf.signal.hann_window(t["n"]),
    }


# The result is a cond's: named <scope>/cond/Merge:0 on both sides.
@add("windows_run_time_length", {"n": np.int32(6), "one": np.int32(1)}, unknown_shapes=True)
def _windows_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "hann": tf.signal.hann_window(t["n"]),
        "one": tf.signal.hamming_window(t["one"], periodic=False),
    }


@add("window_of_ints_fails_at_build", {})
def _window_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.hann_window(4, dtype=tf.int32)}


@add("stft", {"x": AUDIO}, grad=("seen", ("x",)), rtol=1e-4, atol=1e-5)
def _stft(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.signal.stft(t["x"], 12, 5)
    return {
        "y": y,
        "fft_length": tf.signal.stft(t["x"], 12, 5, fft_length=32),
        "pad_end": tf.signal.stft(t["x"], 12, 5, pad_end=True),
        "no_window": tf.signal.stft(t["x"], 8, 8, window_fn=None),
        "hamming": tf.signal.stft(t["x"], 10, 4, window_fn=tf.signal.hamming_window),
        "seen": _seen(tf, y),
    }


@add("stft_run_time_shapes", {"x": AUDIO}, unknown_shapes=True, rtol=1e-4, atol=1e-5)
def _stft_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.signal.stft(t["x"], 12, 5),
        "pad_end": tf.signal.stft(t["x"], 16, 6, 16, pad_end=True),
    }


@add("inverse_stft_round_trip", {"x": AUDIO}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _istft(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    spectra = tf.signal.stft(t["x"], 16, 4)
    window_fn = tf.signal.inverse_stft_window_fn(4)
    return {
        "y": tf.signal.inverse_stft(spectra, 16, 4, window_fn=window_fn),
        "plain": tf.signal.inverse_stft(spectra, 16, 4),
        "short_fft": tf.signal.inverse_stft(tf.signal.stft(t["x"], 16, 4, 8), 16, 4, 8),
        "no_window": tf.signal.inverse_stft(spectra, 12, 6, fft_length=16, window_fn=None),
        "hamming": tf.signal.inverse_stft(
            spectra,
            16,
            4,
            window_fn=tf.signal.inverse_stft_window_fn(4, tf.signal.hamming_window),
        ),
    }


@add("inverse_stft_run_time_shapes", {"s": HALF}, unknown_shapes=True, rtol=1e-4, atol=1e-5)
def _istft_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.inverse_stft(t["s"], 7, 3, fft_length=8)}


@add("linear_to_mel_weight_matrix", {}, rtol=1e-4, atol=1e-6)
def _mel(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "default": tf.signal.linear_to_mel_weight_matrix(),
        "custom": tf.signal.linear_to_mel_weight_matrix(8, 33, 16000, 20.0, 8000.0),
        "f64": tf.signal.linear_to_mel_weight_matrix(
            4, 17, tf.constant(1000.0), 0.0, 400.0, dtype=tf.float64
        ),
    }


@add("mel_upper_edge_above_nyquist_fails_at_build", {})
def _mel_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.linear_to_mel_weight_matrix(10, 65, 8000, 100.0, 4100.0)}


@add("mel_non_constant_rate_fails_at_build", {"r": np.float32(8000)}, unknown_shapes=True)
def _mel_rate(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.linear_to_mel_weight_matrix(sample_rate=t["r"])}


@add("mfccs", {"x": FRAMES}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _mfccs(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.mfccs_from_log_mel_spectrograms(t["x"])}


@add("mfccs_run_time_shapes", {"x": FRAMES}, unknown_shapes=True, rtol=1e-4, atol=1e-5)
def _mfccs_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.mfccs_from_log_mel_spectrograms(t["x"])}


@add("dct_types", {"x": FRAMES}, grad=("two", ("x",)), rtol=1e-4, atol=1e-5)
def _dct(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "one": tf.signal.dct(t["x"], type=1),
        "two": tf.signal.dct(t["x"]),
        "three": tf.signal.dct(t["x"], type=3),
        "two_ortho": tf.signal.dct(t["x"], norm="ortho"),
        "three_ortho": tf.spectral.dct(t["x"], type=3, norm="ortho"),
        "cut": tf.signal.dct(t["x"], n=4),
        "padded": tf.signal.dct(t["x"], n=9, norm="ortho"),
    }


@add("idct_types", {"x": FRAMES}, grad=("two", ("x",)), rtol=1e-4, atol=1e-5)
def _idct(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "one": tf.signal.idct(t["x"], type=1),
        "two": tf.signal.idct(t["x"]),
        "three": tf.spectral.idct(t["x"], type=3),
        "round_trip": tf.signal.idct(tf.signal.dct(t["x"], norm="ortho"), norm="ortho"),
    }


@add("dct_type3_gradient", {"x": FRAMES}, grad=("y", ("x",)), rtol=1e-4, atol=1e-5)
def _dct3_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.dct(t["x"], type=3, norm="ortho")}


@add("dct_run_time_shapes", {"x": FRAMES}, unknown_shapes=True, rtol=1e-4, atol=1e-5)
def _dct_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"two": tf.signal.dct(t["x"]), "three": tf.signal.dct(t["x"], type=3, norm="ortho")}


@add("dct_type1_ortho_fails_at_build", {"x": FRAMES})
def _dct1_ortho(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.dct(t["x"], type=1, norm="ortho")}


@add("dct_type4_fails_at_build", {"x": FRAMES})
def _dct4(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.dct(t["x"], type=4)}


@add("dct_axis_0_fails_at_build", {"x": FRAMES})
def _dct_axis(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.signal.dct(t["x"], axis=0)}


# ---- complex128 and complex moduli (what the FFT ops lean on) ---------------------------------
@add(
    "complex128_parts_and_modulus",
    {"re": values((2, 3), seed=90), "im": values((2, 3), seed=91)},
    grad=("abs", ("re", "im")),
)
def _complex128(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    z = tf.complex(t["re"], t["im"])
    return {
        "z": z,
        "real": tf.real(z),
        "imag": tf.imag(z),
        "abs": tf.abs(z),
        "angle": tf.angle(z),
        "conj": tf.conj(z),
        "product": z * tf.constant(1.5 - 2j),
        "python_complex": tf.constant([1 + 2j, 3j]),
        "abs64": tf.abs(tf.cast(z, tf.complex64)),
    }
