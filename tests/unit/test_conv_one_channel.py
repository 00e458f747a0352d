"""Convolutions of one-channel inputs (a grayscale first layer) take their patches tap by tap;
forward and filter gradient match a float64 numpy convolution for strides, dilations, SAME and
VALID padding, NCHW, 3-D and half precision, in one part or split over the batch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _window, conv


def _reference(
    x: np.ndarray, f: np.ndarray, strides: list[int], dilations: list[int], padding: str
) -> np.ndarray:
    """Channels-last float64 correlation of x [N, *spatial, 1] with f [*k, 1, co]."""
    n = x.ndim - 2
    ks = f.shape[:n]
    pads = []
    for size, k, s, d in zip(x.shape[1:-1], ks, strides, dilations):
        eff = (k - 1) * d + 1
        if padding == "SAME":
            out = -(-size // s)
            total = max((out - 1) * s + eff - size, 0)
            pads.append((total // 2, total - total // 2))
        else:
            pads.append((0, 0))
    xp = np.pad(x.astype(np.float64), [(0, 0), *pads, (0, 0)])
    outs = [
        (xp.shape[1 + i] - ((ks[i] - 1) * dilations[i] + 1)) // strides[i] + 1 for i in range(n)
    ]
    y = np.zeros((x.shape[0], *outs, f.shape[-1]))
    for tap in np.ndindex(*ks):
        sl = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, dilations, strides, outs)
        )
        y += xp[(slice(None), *sl, slice(None))] * f[tap].astype(np.float64)[0]
    return y


CASES = [
    ([1, 1], [1, 1], "SAME", (3, 12, 11, 1), (5, 5, 1, 6)),
    ([2, 1], [1, 1], "VALID", (2, 9, 8, 1), (3, 2, 1, 4)),
    ([1, 1], [2, 1], "SAME", (2, 10, 9, 1), (3, 3, 1, 5)),
]


@pytest.mark.parametrize("in_parts", [False, True], ids=["one-part", "split-over-threads"])
@pytest.mark.parametrize("strides,dilations,padding,xshape,fshape", CASES)
def test_one_channel_convolution_and_filter_gradient_match_float64(
    strides: list[int],
    dilations: list[int],
    padding: str,
    xshape: tuple[int, ...],
    fshape: tuple[int, ...],
    in_parts: bool,
    monkeypatch: Any,
) -> None:
    if in_parts:
        monkeypatch.setattr(_window, "_PARALLEL_BYTES", 0)
    rng = np.random.default_rng(7)
    x_val = rng.standard_normal(xshape).astype(np.float32)
    f_val = rng.standard_normal(fshape).astype(np.float32)
    want = _reference(x_val, f_val, strides, dilations, padding)
    w_val = rng.standard_normal(want.shape).astype(np.float32)
    with tf.Graph().as_default():
        x, f = tf.constant(x_val), tf.constant(f_val)
        y = tf.nn.conv2d(x, f, [1, *strides, 1], padding, dilations=[1, *dilations, 1])
        (df,) = tf.gradients(tf.reduce_sum(y * w_val), [f])
        with tf.Session() as sess:
            got_y, got_df = sess.run([y, df])
    np.testing.assert_allclose(got_y, want, rtol=1e-5, atol=1e-5)
    # The filter gradient: d/df sum(y * w) = sum over outputs of w * the tap's inputs.
    eps_grad = np.zeros(fshape)
    for tap in np.ndindex(*fshape[:2]):
        for o in range(fshape[-1]):
            unit = np.zeros(fshape, np.float32)
            unit[(*tap, 0, o)] = 1
            eps_grad[(*tap, 0, o)] = (
                _reference(x_val, unit, strides, dilations, padding) * w_val
            ).sum()
    np.testing.assert_allclose(got_df, eps_grad, rtol=1e-4, atol=1e-4)


def test_one_channel_nchw_3d_and_half_precision_follow_the_float32_nhwc_form() -> None:
    rng = np.random.default_rng(8)
    x_val = rng.standard_normal((2, 9, 7, 1)).astype(np.float32)
    f_val = rng.standard_normal((3, 3, 1, 4)).astype(np.float32)
    want = _reference(x_val, f_val, [1, 1], [1, 1], "SAME")
    x3 = rng.standard_normal((2, 5, 6, 4, 1)).astype(np.float32)
    f3 = rng.standard_normal((3, 2, 3, 1, 3)).astype(np.float32)
    want3 = _reference(x3, f3, [1, 1, 1], [1, 1, 1], "VALID")
    with tf.Graph().as_default():
        nchw = tf.nn.conv2d(
            tf.constant(x_val.transpose(0, 3, 1, 2)),
            f_val,
            [1, 1, 1, 1],
            "SAME",
            data_format="NCHW",
        )
        half = tf.nn.conv2d(
            tf.constant(x_val.astype(np.float16)), f_val.astype(np.float16), [1, 1, 1, 1], "SAME"
        )
        vol = tf.nn.conv3d(tf.constant(x3), f3, [1, 1, 1, 1, 1], "VALID")
        with tf.Session() as sess:
            got_nchw, got_half, got3 = sess.run([nchw, half, vol])
    np.testing.assert_allclose(got_nchw.transpose(0, 2, 3, 1), want, rtol=1e-5, atol=1e-5)
    assert got_half.dtype == np.float16
    np.testing.assert_allclose(got_half, want, rtol=1e-2, atol=2e-2)
    np.testing.assert_allclose(got3, want3, rtol=1e-5, atol=1e-5)


def test_products_in_small_kernel_pieces_are_the_whole_products() -> None:
    # The one-channel layer's products go in pieces of OpenBLAS's small-matrix kernels'
    # size (conv._rows_product, conv._inner_product): rows of the patches, or the inner
    # dimension of the filter gradient's product, the last piece a partial one.
    rng = np.random.default_rng(8)
    cols_t = rng.standard_normal((25, 3 * 1250 + 7)).astype(np.float32)
    w = rng.standard_normal((25, 32)).astype(np.float32)
    out = np.empty((cols_t.shape[1], 32), np.float32)
    got = conv._rows_product(np, cols_t.T, w, out)
    assert got is out
    np.testing.assert_allclose(got, cols_t.T.astype(np.float64) @ w, rtol=1e-5, atol=1e-4)
    dy = rng.standard_normal((cols_t.shape[1], 32)).astype(np.float32)
    want = cols_t.astype(np.float64) @ dy
    got = conv._inner_product(np, cols_t, dy)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("shape,ksize", [((7, 9, 8, 1), [3, 2]), ((5, 4, 6, 5, 1), [2, 3, 2])])
def test_tap_major_patches_are_the_windows_in_whole_and_partial_blocks(
    shape: tuple[int, ...], ksize: list[int]
) -> None:
    # Blocks of 3 images (the last one partial): each block's patches, tap by tap, must be
    # exactly the input's windows (bits as they are: NaN, infinities, signed zeros).
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:4] = [np.nan, np.inf, -0.0, -np.inf]
    n = len(ksize)
    outs = [s - k + 1 for s, k in zip(shape[1:-1], ksize)]
    view = np.lib.stride_tricks.as_strided(
        x, (shape[0], *outs, *ksize, 1), (*x.strides[:-1], *x.strides[1:-1], x.strides[-1])
    )
    per = int(np.prod(outs))
    item = per * len(list(np.ndindex(*ksize))) * 4
    got: list[tuple[slice, np.ndarray]] = []
    conv._tap_major_products(
        np, view, np.float32, lambda b, r, cols_t: got.append((b, cols_t.copy())), 3 * item
    )
    assert [b.indices(shape[0])[:2] for b, _ in got] == [
        (i, min(i + 3, shape[0])) for i in range(0, shape[0], 3)
    ]
    for b, cols_t in got:
        want = np.moveaxis(view[b][..., 0], tuple(range(1 + n, 1 + 2 * n)), tuple(range(n)))
        want = want.reshape(cols_t.shape)
        np.testing.assert_array_equal(cols_t.view(np.int32), want.view(np.int32))
