"""2x2 max pools whose windows tile a channels-last input take each row's pair of taps, then
the two rows (pooling._max_pool_2x2), instead of the loop over the four taps: the same bits as
the loop's running maximum in row-major tap order, NaN payloads, signed zeros and infinities
included, in every float dtype and both layouts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tfcluster.kernels import pooling
from tfcluster.kernels._window import Window


class _PoolNode:
    def __init__(self, ksize: list[int], padding: str, data_format: str) -> None:
        self.op = "MaxPool"
        self.name = "max_pool"
        window = [1, 1, *ksize] if data_format == "NCHW" else [1, *ksize, 1]
        self.attrs = {
            "ksize": window,
            "strides": window,
            "padding": padding,
            "data_format": data_format,
        }


def _awkward(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Values on a coarse grid (many ties), zeros of both signs, infinities and NaNs of
    several payloads."""
    x = np.round(rng.uniform(-2, 2, shape) * 2) / 2
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=min(flat.size, max(5, flat.size // 8)), replace=False)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0])
    flat[picks] = specials[np.arange(picks.size) % specials.size]
    x = x.astype(dtype)
    bits = x.view(f"u{x.itemsize}").copy()
    nan = np.isnan(x)
    bits[nan] += (np.arange(int(nan.sum())) % 3).astype(bits.dtype)
    return bits.view(dtype)


def _reference(x: np.ndarray) -> np.ndarray:
    """The running maximum over the taps in row-major order (NHWC, 2x2 windows tiling x)."""
    n, h, w, c = x.shape
    taps = x.reshape(n, h // 2, 2, w // 2, 2, c)
    out = taps[:, :, 0, :, 0].copy()
    for i, j in ((0, 1), (1, 0), (1, 1)):
        np.maximum(out, taps[:, :, i, :, j], out=out)
    return out


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.itemsize}")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "shape", [(1, 2, 2, 1), (3, 4, 6, 5), (7, 14, 14, 64), (2, 8, 10, 3), (40, 28, 28, 32)]
)
def test_a_tiling_2x2_pool_gives_the_tap_loops_bits(
    shape: tuple[int, ...], dtype: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pooled: list[tuple[int, ...]] = []
    by_pairs = pooling._max_pool_2x2

    def observed(xp: Any, xl: Any, out: Any) -> Any:
        pooled.append(tuple(xl.shape))
        return by_pairs(xp, xl, out)

    monkeypatch.setattr(pooling, "_max_pool_2x2", observed)
    x = _awkward(np.random.default_rng(sum(shape)), shape, dtype)
    win = Window(_PoolNode([2, 2], "VALID", "NHWC"), 2, "ksize")
    np.testing.assert_array_equal(_bits(pooling._max_pool(np, win, x)), _bits(_reference(x)))
    assert pooled == [shape]  # pooled by pairs of pairs, not the tap loop


def test_a_channels_first_2x2_pool_gives_the_tap_loops_bits() -> None:
    x = _awkward(np.random.default_rng(3), (4, 6, 8, 10), np.float32)
    win = Window(_PoolNode([2, 2], "VALID", "NCHW"), 2, "ksize")
    got = pooling._max_pool(np, win, x)
    want = _reference(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_odd_sizes_pool_as_the_tap_loop_with_their_padding(padding: str) -> None:
    x = _awkward(np.random.default_rng(5), (3, 7, 9, 4), np.float32)
    win = Window(_PoolNode([2, 2], padding, "NHWC"), 2, "ksize")
    got = pooling._max_pool(np, win, x)
    lowest = np.float32(-np.inf)
    rows = 8 if padding == "SAME" else 6
    cols = 10 if padding == "SAME" else 8
    padded = np.full((3, rows, cols, 4), lowest, np.float32)
    padded[:, : min(7, rows), : min(9, cols)] = x[:, :rows, :cols]
    np.testing.assert_array_equal(_bits(got), _bits(_reference(padded)))
