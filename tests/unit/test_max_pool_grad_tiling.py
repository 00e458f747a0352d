"""Max-pool gradients of windows that tile the input (stride = window, no padding) take a
path of their own on contiguous channels-last inputs (kernels/pooling.py: tap-major blocks);
it must give, bit for bit, what the general path gives, which the same pools in the
channels-first layout take: ties (the first maximum in 2-D, every maximum in 3-D), NaN and
infinities in the input and in the incoming gradient, signed zeros, every float dtype."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf


def _awkward(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Values on a coarse grid (many ties), with zeros of both signs, NaN and infinities."""
    x = np.round(rng.uniform(-2, 2, shape) * 2) / 2
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=max(4, flat.size // 20), replace=False)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0])
    flat[picks] = specials[np.arange(picks.size) % specials.size]
    return x.astype(dtype)


def _grads(
    x_val: np.ndarray, g_val: np.ndarray, ksize: list[int], first: bool, relu: bool = False
) -> np.ndarray:
    """d(pool(x) or pool(relu(x)))/dx with incoming gradient g, computed channels-last
    (first=False) or on contiguous channels-first arrays (first=True), returned channels-last."""
    rank = x_val.ndim
    perm = [0, rank - 1, *range(1, rank - 1)] if first else list(range(rank))
    back = np.argsort(perm)
    window = [1, *ksize, 1]
    if first:
        window = [1, 1, *ksize]
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(np.ascontiguousarray(x_val.transpose(perm)))
        g = tf.constant(np.ascontiguousarray(g_val.transpose(perm)))
        pool = tf.nn.max_pool if rank == 4 else tf.nn.max_pool3d
        fmt = ("NCHW" if rank == 4 else "NCDHW") if first else ("NHWC" if rank == 4 else "NDHWC")
        y = pool(tf.nn.relu(x) if relu else x, window, window, "VALID", data_format=fmt)
        (dx,) = tf.gradients(y, [x], grad_ys=[g])
    with tf.Session(graph=graph) as sess:
        return np.ascontiguousarray(np.asarray(sess.run(dx)).transpose(back))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize(
    "shape,ksize",
    [
        ((3, 8, 6, 5), [2, 2]),
        ((2, 6, 9, 3), [2, 3]),
        ((2, 9, 9, 4), [3, 3]),
        ((2, 4, 5, 3), [1, 1]),
        ((2, 4, 6, 4, 3), [2, 3, 2]),
    ],
    ids=["2x2", "2x3", "3x3", "1x1", "3d-2x3x2"],
)
def test_tiling_windows_route_the_gradient_as_the_general_path(
    shape: tuple[int, ...], ksize: list[int], dtype: Any
) -> None:
    rng = np.random.default_rng(len(shape) * 10 + ksize[-1])
    x_val = _awkward(rng, shape, dtype)
    pooled = (shape[0], *(s // k for s, k in zip(shape[1:-1], ksize)), shape[-1])
    g_val = _awkward(rng, pooled, dtype)
    fast = _grads(x_val, g_val, ksize, first=False)
    general = _grads(x_val, g_val, ksize, first=True)
    assert fast.dtype == np.dtype(dtype)
    bits = np.dtype(f"i{fast.dtype.itemsize}")
    np.testing.assert_array_equal(fast.view(bits), general.view(bits))
    # Each window's gradient lands once (2-D: one tap; NaN windows route nowhere): the sum of
    # the routed values is a sum of distinct window gradients, never a tap's twice.
    if len(ksize) == 2:
        routed = np.count_nonzero(fast.view(bits))
        assert 0 < routed <= np.count_nonzero(g_val.view(bits))


def test_pool_of_relu_gradient_on_a_batch_of_several_blocks_matches_the_general_path() -> None:
    # MaxPoolGrad -> ReluGrad runs fused; an input of ~1.6 MB is routed in more than one
    # cache-sized block of the batch, whose results must join up.
    rng = np.random.default_rng(7)
    x_val = _awkward(rng, (48, 16, 16, 32), np.float32)
    g_val = _awkward(rng, (48, 8, 8, 32), np.float32)
    fast = _grads(x_val, g_val, [2, 2], first=False, relu=True)
    general = _grads(x_val, g_val, [2, 2], first=True, relu=True)
    np.testing.assert_array_equal(fast.view(np.int32), general.view(np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_fused_pool_and_relu_gradient_equals_the_two_kernels_one_after_the_other(
    dtype: Any,
) -> None:
    # The fused kernel masks each block's incoming gradient with the pool's output (g * (y >
    # 0)) as it routes the block; fetching the pool's gradient as well keeps the graph from
    # fusing, so MaxPoolGrad and then ReluGrad run as kernels of their own.
    rng = np.random.default_rng(11)
    x_val = _awkward(rng, (48, 16, 16, 32), dtype)
    g_val = _awkward(rng, (48, 8, 8, 32), dtype)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(x_val)
        r = tf.nn.relu(x)
        y = tf.nn.max_pool(r, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        (dr,) = tf.gradients(y, [r], grad_ys=[tf.constant(g_val)])
        (dx,) = tf.gradients(r, [x], grad_ys=[dr])
    with tf.Session(graph=graph) as sess, np.errstate(invalid="ignore"):
        fused = np.asarray(sess.run(dx))
        unfused, pooled_grad = sess.run([dx, dr])
    bits = np.dtype(f"i{fused.dtype.itemsize}")
    assert fused.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(fused.view(bits), np.asarray(unfused).view(bits))
    # Where the ReLU let nothing through, nothing is routed (signed zeros and NaN included).
    with np.errstate(invalid="ignore"):
        blocked = ~(x_val > 0)
        want = (np.asarray(pooled_grad) * np.zeros_like(x_val))[blocked]
    np.testing.assert_array_equal(fused.view(bits)[blocked], want.view(bits))
