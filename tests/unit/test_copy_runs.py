"""kernels/_window.copy_runs: the tap-major, tile and im2col copies of the conv and pooling
kernels, which move short channels-last runs as single void elements on the CPU, write
exactly what np.copyto writes (every byte, NaN payloads included) and nothing else."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels._window import copy_runs


def _channels_last(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("channels", [1, 3, 4, 32, 33, 64])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8"])
def test_a_tap_major_copy_writes_what_copyto_writes(channels: int, dtype: str) -> None:
    rng = np.random.default_rng(channels)
    x = _channels_last(rng, (3, 6, 8, channels), dtype)
    # The windows of a 2x2 pool as axes (N, o1, k1, o2, k2, C), copied tap-major.
    split = x.reshape(3, 3, 2, 4, 2, channels)
    got = np.zeros((2, 2, 3, 3, 4, channels), dtype)
    want = np.zeros_like(got)
    copy_runs(np, got.transpose(2, 3, 0, 4, 1, 5), split)
    np.copyto(want.transpose(2, 3, 0, 4, 1, 5), split)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    # And back into the input's layout, through a cropped destination.
    back = np.zeros((3, 7, 9, channels), dtype)
    copy_runs(np, back[:, 1:, 1:].reshape(3, 3, 2, 4, 2, channels), got.transpose(2, 3, 0, 4, 1, 5))
    assert not back[:, 0].any() and not back[:, :, 0].any()
    np.testing.assert_array_equal(back[:, 1:, 1:], x)


def test_nan_payloads_and_signed_zeros_are_copied_bit_for_bit() -> None:
    bits = np.array([0x7FC01234, 0xFFC00001, 0x80000000, 0x7F800000], np.uint32)
    x = np.tile(bits.view(np.float32), 24).reshape(2, 3, 4, 4)
    got = np.empty((3, 2, 4, 4), np.float32)
    copy_runs(np, got.transpose(1, 0, 2, 3), x)
    np.testing.assert_array_equal(got.transpose(1, 0, 2, 3).view(np.uint32), x.view(np.uint32))


def test_arrays_without_a_contiguous_last_axis_or_of_other_dtypes_are_copied_too() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    strided = np.zeros((4, 5, 12), np.float32)
    copy_runs(np, strided[:, :, ::2], x)  # a strided last axis
    np.testing.assert_array_equal(strided[:, :, ::2], x)
    widened = np.zeros((4, 5, 6), np.float64)
    copy_runs(np, widened, x)  # a cast
    np.testing.assert_array_equal(widened, x.astype(np.float64))
    objects = np.empty(3, object)
    copy_runs(np, objects, np.array(["a", 1, None], object))
    assert list(objects) == ["a", 1, None]


def test_empty_arrays_are_copied_as_numpy_copies_them() -> None:
    for shape in [(2, 0, 32), (0, 32), (3, 0)]:
        dest = np.zeros(shape, np.float32)
        copy_runs(np, dest, np.ones(shape[::-1], np.float32).T)
        assert dest.shape == shape
