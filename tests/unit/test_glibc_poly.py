"""glibc's logf and sincosf computed in numpy (kernels/_glibc_poly.py) against glibc's own, called
through ctypes, over values of every magnitude they cover."""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest
from tfcluster.kernels import _glibc_poly

_LIBM = ctypes.util.find_library("m")


def _glibc(name: str, x: np.ndarray) -> np.ndarray:
    fn = getattr(ctypes.CDLL(_LIBM), name)
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return np.frompyfunc(fn, 1, 1)(x).astype(np.float32)


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)


@pytest.mark.skipif(_LIBM is None, reason="needs glibc's libm")
def test_logf_of_normal_floats_has_glibcs_bits() -> None:
    rng = np.random.default_rng(5)
    uniform = rng.random(100_000, dtype=np.float32) + np.float32(1e-7)
    every_exponent = rng.integers(0x00800000, 0x7F800000, 100_000).astype(np.uint32)
    x = np.concatenate([uniform, every_exponent.view(np.float32), np.float32([1.0, 2.0, 0.5])])
    np.testing.assert_array_equal(_bits(_glibc_poly.logf_normal(x)), _bits(_glibc("logf", x)))


@pytest.mark.skipif(_LIBM is None, reason="needs glibc's libm")
def test_sincosf_under_120_has_glibcs_bits() -> None:
    rng = np.random.default_rng(6)
    box_muller = (2 * np.pi * rng.random(100_000)).astype(np.float32)
    magnitudes = rng.integers(0, 0x42F00000, 100_000).astype(np.uint32).view(np.float32)
    x = np.concatenate([box_muller, magnitudes, -magnitudes[:1000], np.float32([0.0, -0.0])])
    sin, cos, covered = _glibc_poly.sincosf_reduced_range(x)
    assert covered.all()
    np.testing.assert_array_equal(_bits(sin), _bits(_glibc("sinf", x)))
    np.testing.assert_array_equal(_bits(cos), _bits(_glibc("cosf", x)))
