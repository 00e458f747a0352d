"""Convolution and pooling forms TF 1.15's CPU kernels lack (NCHW / NCDHW layouts, gradients
of dilated convolutions), checked against the NHWC forms TF computes (conv_cases.py records
those) and against finite differences; EXPLICIT padding against an explicit pad; half
precision against float32; scratch buffers under concurrent steps."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gradient_check import assert_gradients_match
from tf_reference.conv_cases import arr
from tfcluster.kernels import _conv_phases, _window
from threadpoolctl import threadpool_info

TO_FIRST = [0, 3, 1, 2]
TO_LAST = [0, 2, 3, 1]


def _run(fetches: Any, feed: dict[Any, Any] | None = None) -> Any:
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _nhwc_and_nchw(
    build: Callable[[Any, str], Any], x_val: np.ndarray, rank: int = 4
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(outputs and input gradient) built NHWC, and built NCHW then moved back to NHWC."""
    first, last = ([0, 4, 1, 2, 3], [0, 2, 3, 4, 1]) if rank == 5 else (TO_FIRST, TO_LAST)
    fmts = ("NDHWC", "NCDHW") if rank == 5 else ("NHWC", "NCHW")
    results = []
    for fmt in fmts:
        with tf.Graph().as_default():
            x = tf.constant(x_val)
            xin = x if fmt == fmts[0] else tf.transpose(x, first)
            y = build(xin, fmt)
            if fmt == fmts[1]:
                y = tf.transpose(y, last)
            w = tf.constant(arr(99, y.shape.as_list(), 0.5, 1.5))
            (g,) = tf.gradients(tf.reduce_sum(y * w), [x])
            results.append(_run([y, g]))
    return results[0], results[1]


@pytest.mark.parametrize(
    "strides,padding,dilations",
    [
        ([1, 1], "SAME", [1, 1]),
        ([2, 1], "VALID", [1, 1]),
        ([1, 1], "SAME", [2, 1]),
        ([1, 2], [[0, 0], [1, 2], [0, 1], [0, 0]], [1, 1]),
    ],
)
def test_conv2d_nchw_is_the_transposed_nhwc_convolution(
    strides: list[int], padding: Any, dilations: list[int]
) -> None:
    w_val = arr(2, (3, 2, 3, 4))

    def build(x: Any, fmt: str) -> Any:
        pad = padding
        if isinstance(padding, list) and fmt == "NCHW":
            pad = [padding[i] for i in TO_FIRST]
        if fmt == "NHWC":
            s, d = [1, *strides, 1], [1, *dilations, 1]
        else:
            s, d = [1, 1, *strides], [1, 1, *dilations]
        return tf.nn.conv2d(x, tf.constant(w_val), s, pad, data_format=fmt, dilations=d)

    nhwc, nchw = _nhwc_and_nchw(build, arr(1, (2, 7, 6, 3)))
    for a, b in zip(nhwc, nchw):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_conv3d_and_pools_in_channels_first_layouts() -> None:
    w_val = arr(3, (2, 3, 2, 2, 3))

    def conv3d(x: Any, fmt: str) -> Any:
        s = [1, 2, 1, 1, 1] if fmt == "NDHWC" else [1, 1, 2, 1, 1]
        return tf.nn.conv3d(x, tf.constant(w_val), s, "SAME", data_format=fmt)

    def pools(x: Any, fmt: str) -> Any:
        k = [1, 2, 3, 2, 1] if fmt == "NDHWC" else [1, 1, 2, 3, 2]
        s = [1, 2, 1, 2, 1] if fmt == "NDHWC" else [1, 1, 2, 1, 2]
        return tf.nn.max_pool3d(x, k, s, "SAME", fmt) + tf.nn.avg_pool3d(x, k, s, "SAME", fmt)

    for build in (conv3d, pools):
        a, b = _nhwc_and_nchw(build, arr(4, (2, 4, 5, 4, 2)), rank=5)
        for u, v in zip(a, b):
            np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-5)


def test_2d_pools_and_depthwise_in_nchw() -> None:
    dw = arr(5, (3, 2, 3, 2))

    def build(x: Any, fmt: str) -> Any:
        k = [1, 3, 2, 1] if fmt == "NHWC" else [1, 1, 3, 2]
        s = [1, 2, 2, 1] if fmt == "NHWC" else [1, 1, 2, 2]
        mx = tf.nn.max_pool(x, k, s, "SAME", data_format=fmt)
        av = tf.nn.avg_pool(x, k, s, "SAME", data_format=fmt)
        d = tf.nn.depthwise_conv2d_native(x, tf.constant(dw), s, "SAME", data_format=fmt)
        axis = 3 if fmt == "NHWC" else 1
        return tf.concat([mx, av, d], axis)

    a, b = _nhwc_and_nchw(build, arr(6, (2, 7, 6, 3)))
    for u, v in zip(a, b):
        np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-5)


def test_explicit_padding_is_a_pad_then_valid() -> None:
    x, w = tf.constant(arr(7, (2, 5, 6, 3))), tf.constant(arr(8, (3, 3, 3, 2)))
    pads = [[0, 0], [2, 1], [0, 3], [0, 0]]
    explicit = tf.nn.conv2d(x, w, [1, 2, 1, 1], pads)
    manual = tf.nn.conv2d(tf.pad(x, pads), w, [1, 2, 1, 1], "VALID")
    assert explicit.shape.as_list() == manual.shape.as_list() == [2, 3, 7, 2]
    ge = tf.gradients(tf.reduce_sum(explicit * explicit), [x, w])
    gm = tf.gradients(tf.reduce_sum(manual * manual), [x, w])
    for a, b in zip(_run([explicit, *ge]), _run([manual, *gm])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["conv2d", "depthwise", "conv3d"])
def test_gradients_of_dilated_convolutions_match_finite_differences(op: str) -> None:
    if op == "conv2d":
        shapes = [(1, 6, 5, 2), (2, 2, 2, 3)]

        def build(x: Any, w: Any) -> Any:
            return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
    elif op == "depthwise":
        shapes = [(1, 6, 5, 2), (2, 2, 2, 2)]

        def build(x: Any, w: Any) -> Any:
            return tf.nn.depthwise_conv2d_native(
                x, w, [1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 1]
            )
    else:
        shapes = [(1, 4, 4, 3, 1), (2, 2, 2, 1, 2)]

        def build(x: Any, w: Any) -> Any:
            return tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2, 1, 2, 1])

    inputs = [arr(10 + i, s, dtype=np.float64) for i, s in enumerate(shapes)]
    assert_gradients_match(build, inputs)


def test_half_precision_convolution_and_pools_follow_float32() -> None:
    x_val, w_val = arr(11, (2, 6, 5, 3)), arr(12, (3, 3, 3, 4))
    outs = []
    for dtype in (tf.float16, tf.float32):
        x = tf.cast(tf.constant(x_val), dtype)
        w = tf.cast(tf.constant(w_val), dtype)
        y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        p = tf.nn.avg_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        m = tf.nn.max_pool(y, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
        # Rounding to half makes ties a max pool breaks differently: its value only.
        g = tf.gradients(tf.reduce_sum(p), [x, w])
        vals = _run([y, p, m, *g])
        assert all(v.dtype == dtype.as_numpy_dtype for v in vals)
        outs.append(vals)
    for half, single in zip(*outs):
        np.testing.assert_allclose(half.astype(np.float32), single, rtol=2e-2, atol=3e-2)


def test_concurrent_steps_never_share_a_scratch_buffer() -> None:
    # Threads run the same plan at once with different inputs: each must get its own answer.
    x = tf.placeholder(tf.float32, [4, 9, 9, 3])
    w = tf.constant(arr(13, (3, 3, 3, 8)))
    y = tf.nn.max_pool(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
    g = tf.gradients(tf.reduce_sum(y * y), [x, w])
    inputs = [arr(20 + i, (4, 9, 9, 3)) for i in range(6)]
    with tf.Session() as sess:
        want = [sess.run([y, *g], {x: v}) for v in inputs]
        got: dict[int, Any] = {}

        def work(i: int) -> None:
            for _ in range(5):
                got[i] = sess.run([y, *g], {x: inputs[i]})

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for i, vals in enumerate(want):
        for a, b in zip(got[i], vals):
            np.testing.assert_array_equal(a, b)


def test_shape_functions_of_channels_first_ops() -> None:
    x = tf.placeholder(tf.float32, [None, 3, 7, 6])
    y = tf.nn.conv2d(x, tf.zeros([3, 2, 3, 4]), [1, 1, 2, 2], "SAME", data_format="NCHW")
    assert y.shape.as_list() == [None, 4, 4, 3]
    p = tf.nn.max_pool(x, [1, 1, 3, 3], [1, 1, 2, 1], "VALID", data_format="NCHW")
    assert p.shape.as_list() == [None, 3, 3, 4]
    v = tf.placeholder(tf.float32, [2, 2, 3, 4, 5])
    c3 = tf.nn.conv3d(v, tf.zeros([1, 2, 2, 2, 6]), [1, 1, 1, 2, 2], "VALID", data_format="NCDHW")
    assert c3.shape.as_list() == [2, 6, 3, 2, 2]
    with pytest.raises(ValueError, match="batch and depth"):
        tf.nn.conv2d(x, tf.zeros([3, 2, 3, 4]), [1, 2, 1, 1], "SAME", data_format="NCHW")


def _numpy_input_backprop(
    dy: np.ndarray,
    w: np.ndarray,
    x_shape: tuple[int, ...],
    strides: list[int],
    dil: list[int],
    pads: list[tuple[int, int]],
) -> np.ndarray:
    """dx of a NHWC conv2d by the definition: every output's gradient sent back to the
    inputs its window read."""
    n, h, wd, c = x_shape
    kh, kw = w.shape[:2]
    dxp = np.zeros((n, h + pads[0][0] + pads[0][1], wd + pads[1][0] + pads[1][1], c))
    for i in range(kh):
        for j in range(kw):
            r, q = i * dil[0], j * dil[1]
            contrib = dy @ w[i, j].T  # [n, oh, ow, c]
            dxp[
                :,
                r : r + strides[0] * (dy.shape[1] - 1) + 1 : strides[0],
                q : q + strides[1] * (dy.shape[2] - 1) + 1 : strides[1],
            ] += contrib
    return dxp[:, pads[0][0] : pads[0][0] + h, pads[1][0] : pads[1][0] + wd]


@pytest.mark.parametrize(
    "ci,co,strides,dil,padding,ksizes,route",
    [
        # the correlation with the flipped filter: plain, dilated, explicit padding
        (16, 24, [1, 1], [1, 1], "SAME", (3, 2), "correlation"),
        (16, 20, [1, 1], [2, 1], "VALID", (3, 2), "correlation"),
        (18, 16, [1, 1], [1, 1], [[0, 0], [2, 0], [0, 1], [0, 0]], (3, 2), "correlation"),
        # the scatter over taps: few input channels, a stride that does not divide the filter
        (3, 24, [1, 1], [1, 1], "SAME", (3, 2), "scatter"),
        (16, 24, [2, 1], [1, 1], "SAME", (3, 2), "scatter"),
        (3, 24, [2, 2], [1, 1], "SAME", (4, 2), "scatter"),
        # strides that divide the filter: the phases of the stride (kernels/_conv_phases.py)
        (16, 24, [2, 2], [1, 1], "SAME", (4, 2), "phases"),
        (16, 12, [2, 2], [1, 1], "VALID", (4, 4), "phases"),
        (20, 8, [3, 1], [1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]], (3, 2), "phases"),
        (16, 8, [2, 3], [1, 1], "VALID", (2, 3), "phases"),
    ],
)
@pytest.mark.parametrize("in_parts", [False, True])
def test_input_backprop_strategies_match_the_definition(
    ci: int,
    co: int,
    strides: list[int],
    dil: list[int],
    padding: Any,
    ksizes: tuple[int, int],
    route: str,
    in_parts: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if in_parts:  # every product split over the batch, one part per core
        monkeypatch.setattr(_window, "_PARALLEL_BYTES", 0)
    by_phases: list[bool] = []
    through = _conv_phases.backprop_input

    def phases(*args: Any) -> Any:
        by_phases.append(True)
        return through(*args)

    monkeypatch.setattr(_conv_phases, "backprop_input", phases)
    x_shape = (2, 7, 6, ci)
    w_val = arr(40, (*ksizes, ci, co), dtype=np.float64)
    x = tf.placeholder(tf.float64, x_shape)
    y = tf.nn.conv2d(x, tf.constant(w_val), [1, *strides, 1], padding, dilations=[1, *dil, 1])
    dy_val = arr(41, y.shape.as_list(), dtype=np.float64)
    (dx,) = tf.gradients(y, [x], grad_ys=tf.constant(dy_val))
    got = _run(dx, {x: np.zeros(x_shape)})
    if isinstance(padding, list):
        pads = [tuple(padding[1]), tuple(padding[2])]
    elif padding == "SAME":
        pads = []
        for size, k, s, d, o in zip(x_shape[1:3], w_val.shape[:2], strides, dil, dy_val.shape[1:3]):
            need = max((o - 1) * s + (k - 1) * d + 1 - size, 0)
            pads.append((need // 2, need - need // 2))
    else:
        pads = [(0, 0), (0, 0)]
    want = _numpy_input_backprop(dy_val, w_val, x_shape, strides, dil, pads)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert bool(by_phases) == (route == "phases")


@pytest.mark.parametrize("ci,strides", [(3, [1, 1]), (16, [1, 1]), (16, [2, 2])])
def test_products_split_over_the_batch_give_the_whole_batch_answer(
    ci: int, strides: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The forward, both backprops and the patches the forward leaves to the filter backprop,
    # computed in one piece and in parts of the batch (each part's products on its own
    # thread, the filter gradient's shares summed).
    x_val = arr(50, (5, 8, 7, ci), dtype=np.float64)
    w_val = arr(51, (3, 3, ci, 24), dtype=np.float64)

    def run() -> list[np.ndarray]:
        with tf.Graph().as_default():
            x, w = tf.constant(x_val), tf.constant(w_val)
            y = tf.nn.relu(tf.nn.conv2d(x, w, [1, *strides, 1], "SAME"))
            gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
            return list(_run([y, gx, gw]))

    whole = run()
    monkeypatch.setattr(_window, "_PARALLEL_BYTES", 0)
    parts = run()
    for a, b in zip(parts, whole):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _numpy_max_pool_grad(
    x: np.ndarray, g: np.ndarray, k: int, s: int, pads: tuple[int, int]
) -> np.ndarray:
    """dx of a NHWC max pool by the definition: each window's gradient added at its first
    maximum in row-major order."""
    n, h, w, c = x.shape
    xp_ = np.full((n, h + sum(pads), w + sum(pads), c), -np.inf, x.dtype)
    before = pads[0]
    xp_[:, before : before + h, before : before + w] = x
    dx = np.zeros(xp_.shape, g.dtype)
    for b in range(n):
        for i in range(g.shape[1]):
            for j in range(g.shape[2]):
                for ch in range(c):
                    window = xp_[b, i * s : i * s + k, j * s : j * s + k, ch]
                    r, q = np.unravel_index(np.argmax(window), window.shape)
                    dx[b, i * s + r, j * s + q, ch] += g[b, i, j, ch]
    return dx[:, before : before + h, before : before + w]


@pytest.mark.parametrize("k,s,padding,pads", [(2, 2, "VALID", (0, 0)), (3, 2, "SAME", (0, 1))])
@pytest.mark.parametrize("in_parts", [False, True])
def test_max_pool_gradient_goes_to_the_first_maximum_exactly(
    k: int, s: int, padding: str, pads: tuple[int, int], in_parts: bool, monkeypatch: Any
) -> None:
    # Ties (a ReLU's zeros) and a gradient with NaN and infinities: each window's gradient,
    # bits and all, at its first maximum; zeros elsewhere.
    if in_parts:
        monkeypatch.setattr(_window, "_PARALLEL_BYTES", 0)
    x_val = np.maximum(arr(60, (3, 6, 6, 4)) - 0.3, 0).astype(np.float32)
    x = tf.constant(x_val)
    y = tf.nn.max_pool(x, [1, k, k, 1], [1, s, s, 1], padding)
    g_val = arr(61, y.shape.as_list()).astype(np.float32)
    g_val[0, 0, 0, :3] = [np.inf, -np.inf, np.nan]
    (dx,) = tf.gradients(y, [x], grad_ys=tf.constant(g_val))
    got = _run(dx)
    want = _numpy_max_pool_grad(x_val, g_val, k, s, pads)
    np.testing.assert_array_equal(got, want)


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


@pytest.mark.parametrize("split", [True, False], ids=["split-over-threads", "too-small-to-split"])
def test_blas_is_single_threaded_while_a_kernel_runs_over_the_batch(
    monkeypatch: pytest.MonkeyPatch, split: bool
) -> None:
    # Split or not, BLAS runs on one thread inside the kernel (its own threads would spin
    # for cores other work holds) and gets its thread count back afterwards.
    before = _blas_threads()
    if not before:
        pytest.skip("threadpoolctl finds no BLAS")
    if split:
        monkeypatch.setattr(_window, "_PARALLEL_BYTES", 0)
    seen = _window.over_batch(np, 8, 1 << 10, lambda rows: _blas_threads(), block=1)
    assert seen == [[1] * len(before)] * 8
    assert _blas_threads() == before
