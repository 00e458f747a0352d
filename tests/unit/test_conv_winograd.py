"""Stride-1 3x3 and 5x5 float32 convolutions on the CPU go by Winograd's tiles
(kernels/_winograd.py): the transforms are exact, and the convolution, its input gradient and
its filter gradient agree with float64 references within float32 accuracy (a few 1e-6 of the
largest output; a wrong transform is off by the output's own size)."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _winograd

# Relative to the reference's largest magnitude: Winograd's float32 error is about 5e-6.
_TOL = 3e-5

_SHAPES = [
    # (input NHWC, filter size, out channels, padding)
    ((4, 14, 14, 16), 5, 24, "SAME"),  # 14 = 3.5 tiles of 4x4: the last ones cropped
    ((3, 12, 12, 8), 5, 16, "SAME"),  # 12 = three 4x4 tiles exactly
    ((2, 17, 13, 9), 5, 12, "VALID"),
    ((2, 11, 16, 12), 3, 10, "SAME"),
    ((4, 9, 10, 8), 3, 8, "VALID"),
]


def _correlate64(x: np.ndarray, f: np.ndarray, padding: str) -> np.ndarray:
    """The convolution in float64 by numpy alone (NHWC, stride 1)."""
    r = f.shape[0]
    x = x.astype(np.float64)
    if padding == "SAME":
        lo = (r - 1) // 2
        x = np.pad(x, ((0, 0), (lo, r - 1 - lo), (lo, r - 1 - lo), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(x, (r, r), axis=(1, 2))
    return np.einsum("nhwcij,ijck->nhwk", win, f.astype(np.float64))


def _err(got: Any, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(got, np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize(("m", "r"), [(2, 3), (4, 3), (2, 5), (3, 5), (4, 5)])
def test_transforms_compute_the_correlation_exactly(m: int, r: int) -> None:
    t = _winograd.transforms(m, r)
    rng = np.random.default_rng(m * 10 + r)
    for _ in range(5):
        d = rng.standard_normal(t.a)
        g = rng.standard_normal(r)
        want = np.array([d[i : i + r] @ g for i in range(m)])
        got = t.at @ ((t.g @ g) * (t.bt @ d))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("shape", "r", "co", "padding"), _SHAPES)
def test_cases_of_this_size_are_taken_by_winograd(
    shape: tuple[int, ...], r: int, co: int, padding: str
) -> None:
    outs = [s if padding == "SAME" else s - r + 1 for s in shape[1:3]]
    assert _winograd.applicable([r, r], [1, 1], [1, 1], outs, shape[3], co, shape[0])


def test_small_strided_dilated_or_few_channel_convolutions_are_not() -> None:
    big = ([5, 5], [1, 1], [1, 1], [14, 14], 32, 64, 128)
    assert _winograd.applicable(*big)
    assert not _winograd.applicable([5, 5], [2, 2], [1, 1], [14, 14], 32, 64, 128)
    assert not _winograd.applicable([5, 5], [1, 1], [2, 2], [14, 14], 32, 64, 128)
    assert not _winograd.applicable([5, 5], [1, 1], [1, 1], [28, 28], 1, 32, 128)
    assert not _winograd.applicable([5, 3], [1, 1], [1, 1], [14, 14], 32, 64, 128)
    assert not _winograd.applicable([7, 7], [1, 1], [1, 1], [14, 14], 32, 64, 128)
    assert not _winograd.applicable([3, 3], [1, 1], [1, 1], [4, 4], 8, 8, 1)


@pytest.mark.parametrize(("shape", "r", "co", "padding"), _SHAPES)
def test_forward_matches_float64_numpy(
    shape: tuple[int, ...], r: int, co: int, padding: str
) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    f = (rng.standard_normal((r, r, shape[3], co)) / (r * np.sqrt(shape[3]))).astype(np.float32)
    want = _correlate64(x, f, padding)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.nn.conv2d(tf.constant(x), tf.constant(f), [1, 1, 1, 1], padding))
    assert got.dtype == np.float32 and got.shape == want.shape
    assert _err(got, want) < _TOL


def _grads(x: np.ndarray, f: np.ndarray, w: np.ndarray, padding: str, fmt: str) -> list[Any]:
    """[y, dL/dx, dL/df] of L = sum(conv(x, f) * w) in x's dtype (NHWC arrays given)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        xt, wt = tf.constant(x), tf.constant(w)
        ft = tf.constant(f)
        if fmt == "NCHW":
            y = tf.nn.conv2d(
                tf.transpose(xt, [0, 3, 1, 2]), ft, [1, 1, 1, 1], padding, data_format="NCHW"
            )
            y = tf.transpose(y, [0, 2, 3, 1])
        else:
            y = tf.nn.conv2d(xt, ft, [1, 1, 1, 1], padding)
        dx, df = tf.gradients(tf.reduce_sum(y * wt), [xt, ft])
        return list(sess.run([y, dx, df]))


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize(("shape", "r", "co", "padding"), _SHAPES)
def test_gradients_match_the_float64_kernels(
    shape: tuple[int, ...], r: int, co: int, padding: str, fmt: str
) -> None:
    # float64 convolutions take im2col (checked against TensorFlow in test_conv_reference).
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    f = (rng.standard_normal((r, r, shape[3], co)) / (r * np.sqrt(shape[3]))).astype(np.float32)
    outs = [s if padding == "SAME" else s - r + 1 for s in shape[1:3]]
    w = rng.standard_normal((shape[0], *outs, co)).astype(np.float32)
    got = _grads(x, f, w, padding, fmt)
    want = _grads(x.astype(np.float64), f.astype(np.float64), w.astype(np.float64), padding, fmt)
    np.testing.assert_allclose(want[0], _correlate64(x, f, padding), rtol=1e-12, atol=1e-12)
    for name, g, ref in zip(("output", "input gradient", "filter gradient"), got, want):
        assert g.dtype == np.float32 and g.shape == ref.shape, name
        assert _err(g, ref) < _TOL, name


def test_a_batch_split_over_blocks_and_threads_matches_one_image_at_a_time() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 14, 14, 32)).astype(np.float32)
    f = (rng.standard_normal((5, 5, 32, 64)) * 0.03).astype(np.float32)
    pads = [(2, 2), (2, 2)]
    whole = _winograd.forward(x, f, [14, 14], pads, 4)
    one = np.concatenate([_winograd.forward(x[i : i + 1], f, [14, 14], pads, 4) for i in range(4)])
    # Close, not equal: OpenBLAS picks its sgemm kernel by shape and CPU type (with
    # OPENBLAS_CORETYPE=Haswell a one-image product sums in another order, ~1e-5 apart).
    np.testing.assert_allclose(whole[:4], one, rtol=1e-5, atol=1e-5 * np.abs(one).max())
    dy = rng.standard_normal((64, 14, 14, 64)).astype(np.float32)
    dw = _winograd.filter_grad(x, dy, 5, pads, 4)
    parts = sum(
        _winograd.filter_grad(x[i : i + 16], dy[i : i + 16], 5, pads, 4) for i in (0, 16, 32, 48)
    )
    np.testing.assert_allclose(dw, parts, rtol=1e-5, atol=1e-5 * np.abs(dw).max())


def test_the_filter_gradient_is_the_same_from_run_to_run() -> None:
    # Blocks go to whichever thread is free; their sums must still be added in one order.
    rng = np.random.default_rng(4)
    x = rng.standard_normal((96, 14, 14, 32)).astype(np.float32)
    dy = rng.standard_normal((96, 14, 14, 64)).astype(np.float32)
    first = _winograd.filter_grad(x, dy, 5, [(2, 2), (2, 2)], 4)
    for _ in range(3):
        np.testing.assert_array_equal(_winograd.filter_grad(x, dy, 5, [(2, 2), (2, 2)], 4), first)


def test_chunk_sums_added_by_column_ranges_are_the_sums_added_in_order() -> None:
    # Magnitudes over many decades: any other order or grouping changes the float64 bits.
    rng = np.random.default_rng(5)
    shape = (8, 64, 32, 65)  # columns not a multiple of the ranges
    sums = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-6, 6, shape)).astype(np.float32)
    want = sums[0].astype(np.float64)
    for i in range(1, sums.shape[0]):
        want = want + sums[i]
    got = _winograd._chunk_sums_in_order(sums)
    assert got.dtype == np.float64 and got.shape == shape[1:]
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


def test_the_filter_transform_is_made_once_by_the_first_block_that_wants_it() -> None:
    made: list[int] = []

    def make() -> np.ndarray:
        made.append(1)
        time.sleep(0.05)  # the other threads ask meanwhile
        return np.arange(3.0)

    once = _winograd._Once(make)
    got: list[np.ndarray] = []
    threads = [threading.Thread(target=lambda: got.append(once.get())) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(made) == 1 and len(got) == 4
    assert all(g is got[0] for g in got)


def test_a_transform_product_cut_in_column_panels_is_the_whole_product() -> None:
    # A^T times a wide operand (the conv net's 8 x 32768 products) goes in column panels.
    rng = np.random.default_rng(5)
    at = _winograd.transforms(4, 5).at32
    wide = rng.standard_normal((8, 32768 + 5)).astype(np.float32)
    out = np.empty((4, wide.shape[1]), np.float32)
    _winograd._left_product(at, wide, out)
    # A panel is a product of another shape: OpenBLAS may choose another kernel for it.
    whole = np.matmul(at, wide)
    np.testing.assert_allclose(out, whole, rtol=1e-6, atol=1e-6 * np.abs(whole).max())


def test_a_fused_bias_and_relu_on_cropped_tiles_match_them_applied_after() -> None:
    # 14 x 14 outputs: the last tiles reach past the output; the epilogue runs on the tiles
    # before they are placed, and must give what it gives on the placed output.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((8, 14, 14, 16)).astype(np.float32)
    f = (rng.standard_normal((5, 5, 16, 24)) * 0.05).astype(np.float32)
    b = rng.standard_normal(24).astype(np.float32)

    def epilogue(block: Any) -> None:
        np.add(block, b, out=block)
        np.maximum(block, 0, out=block)

    fused = _winograd.forward(x, f, [14, 14], [(2, 2), (2, 2)], 4, epilogue)
    plain = _winograd.forward(x, f, [14, 14], [(2, 2), (2, 2)], 4)
    np.testing.assert_array_equal(fused, np.maximum(plain + b, 0))


@pytest.mark.parametrize(
    "m,r,channels",
    [(4, 5, (32, 64)), (3, 5, (7, 5)), (2, 3, (16, 24)), (4, 3, (3, 40))],
    ids=["F4x4-5x5", "F3x3-5x5", "F2x2-3x3", "F4x4-3x3"],
)
def test_the_filter_transform_is_the_einsum_formula_bit_for_bit(
    m: int, r: int, channels: tuple[int, int]
) -> None:
    # U = G f G^T by two products over the taps gives the float64 sums of the formula as
    # np.einsum makes them, then float32: the same filters as before, NaN and infinities
    # included, and for a flipped, transposed (non-contiguous) filter as the input gradient
    # passes it.
    t = _winograd.transforms(m, r)
    rng = np.random.default_rng(11)
    f = rng.standard_normal((r, r, *channels)).astype(np.float32)
    f[0, 1, 0, :2] = [np.inf, np.nan]
    for filt in (f, np.swapaxes(f[::-1, ::-1], -1, -2)):
        with np.errstate(invalid="ignore"):  # inf * 0 in both: NaN, as in the kernels
            want = np.einsum("xi,yj,ijck->xyck", t.g, t.g, filt.astype(np.float64), optimize=True)
            got = t.filter(filt)
        want32 = want.reshape(t.a * t.a, *filt.shape[2:]).astype(np.float32)
        assert got.shape == want32.shape and got.flags.c_contiguous
        np.testing.assert_array_equal(got.view(np.int32), want32.view(np.int32))


@pytest.mark.parametrize(
    ("m", "r", "shape", "padding"),
    [
        (2, 3, (3, 11, 16, 12), "SAME"),
        (4, 3, (2, 9, 10, 8), "VALID"),
        (2, 5, (2, 10, 9, 8), "SAME"),
        (3, 5, (2, 17, 13, 9), "VALID"),
        (4, 5, (5, 14, 14, 16), "SAME"),
    ],
)
def test_both_gradients_at_once_match_float64_and_the_filter_gradient_alone(
    m: int, r: int, shape: tuple[int, ...], padding: str
) -> None:
    rng = np.random.default_rng(m * 10 + r)
    x = rng.standard_normal(shape).astype(np.float32)
    co = 12
    f = (rng.standard_normal((r, r, shape[3], co)) / (r * np.sqrt(shape[3]))).astype(np.float32)
    lo = (r - 1) // 2 if padding == "SAME" else 0
    hi = r - 1 - lo if padding == "SAME" else 0
    outs = [s + lo + hi - r + 1 for s in shape[1:3]]
    dy = rng.standard_normal((shape[0], *outs, co)).astype(np.float32)
    pads = [(lo, hi), (lo, hi)]
    dx, dw = _winograd.backward(x, dy, f, pads, m)
    # The input gradient in float64: dy, padded by r - 1 less the forward's pads, correlated
    # with the flipped filter (its channels swapped).
    back = (r - 1 - lo, r - 1 - hi)
    dy_padded = np.pad(dy.astype(np.float64), ((0, 0), back, back, (0, 0)))
    want_dx = _correlate64(dy_padded, np.swapaxes(f[::-1, ::-1], 2, 3), "VALID")
    assert dx.dtype == np.float32 and dx.shape == x.shape
    assert _err(dx, want_dx) < _TOL
    np.testing.assert_array_equal(dw, _winograd.filter_grad(x, dy, r, pads, m))


@pytest.mark.parametrize(("m", "r", "shape"), [(4, 5, (9, 14, 14, 16)), (2, 3, (3, 11, 16, 12))])
def test_input_tiles_kept_by_the_forward_give_the_backward_bit_for_bit(
    m: int, r: int, shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(m + r)
    x = rng.standard_normal(shape).astype(np.float32)
    f = rng.standard_normal((r, r, shape[3], 8)).astype(np.float32)
    lo = (r - 1) // 2
    pads = [(lo, r - 1 - lo), (lo, r - 1 - lo)]
    dy = rng.standard_normal((shape[0], *shape[1:3], 8)).astype(np.float32)
    y = _winograd.forward(x, f, list(shape[1:3]), pads, m, keep=x)
    np.testing.assert_array_equal(y, _winograd.forward(x, f, list(shape[1:3]), pads, m))
    assert len(_winograd.KEPT) == 1
    kept = _winograd.backward(x, dy, f, pads, m, kept_by=x)
    assert len(_winograd.KEPT) == 0  # taken by the backward
    for got, want in zip(kept, _winograd.backward(x, dy, f, pads, m)):
        np.testing.assert_array_equal(got, want)


def test_kept_input_tiles_serve_only_their_own_input_and_go_with_it() -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 12, 12, 8)).astype(np.float32)
    f = rng.standard_normal((5, 5, 8, 8)).astype(np.float32)
    pads = [(2, 2), (2, 2)]
    dy = rng.standard_normal((4, 12, 12, 8)).astype(np.float32)
    _winograd.forward(x, f, [12, 12], pads, 4, keep=x)
    other = x.copy()
    other[0, 0, 0, 0] += 1.0
    # Another array (equal shape, other numbers) transforms its own input.
    got = _winograd.backward(other, dy, f, pads, 4, kept_by=other)
    for g, w in zip(got, _winograd.backward(other, dy, f, pads, 4)):
        np.testing.assert_array_equal(g, w)
    assert len(_winograd.KEPT) == 1  # x's, until x goes
    del x
    gc.collect()
    assert len(_winograd.KEPT) == 0
