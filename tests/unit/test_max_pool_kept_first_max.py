"""A 2-D max pool whose windows tile its input, marked by the graph optimizer because its
MaxPoolGrad runs in the same step, keeps each window's first maximum (kernels/_first_max.py);
the gradient then routes by those positions instead of finding them again. The pooled values
and the routed gradient are the same bit for bit: ties go to the first maximum, NaN windows
nowhere, signed zeros and infinities as they are, in every float dtype."""

from __future__ import annotations

import gc
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _first_max, in_place, pooling
from tfcluster.kernels._window import Window
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.kernel_fusion import KEEP_FIRST_MAX, fuse_kernels


class _PoolNode:
    def __init__(self, op: str, ksize: list[int], padding: str = "VALID") -> None:
        self.op = op
        self.name = op.lower()
        window = [1, *ksize, 1]
        self.attrs = {"ksize": window, "strides": window, "padding": padding}


def _window(op: str, ksize: list[int]) -> Window:
    return Window(_PoolNode(op, ksize), 2, "ksize")


def _awkward(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Values on a coarse grid (many ties), with zeros of both signs, NaN and infinities."""
    x = np.round(rng.uniform(-2, 2, shape) * 2) / 2
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=max(4, flat.size // 20), replace=False)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0])
    flat[picks] = specials[np.arange(picks.size) % specials.size]
    return x.astype(dtype)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"i{a.dtype.itemsize}"))


@pytest.mark.parametrize("relu", [False, True], ids=["MaxPoolGrad", "fused-with-ReluGrad"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize(
    "shape,ksize",
    [
        ((3, 8, 6, 5), [2, 2]),
        ((2, 6, 9, 3), [2, 3]),
        ((2, 9, 9, 4), [3, 3]),
        ((2, 4, 5, 3), [1, 1]),
    ],
    ids=["2x2", "2x3", "3x3", "1x1"],
)
def test_kept_first_maxima_route_the_gradient_as_finding_them_again(
    shape: tuple[int, ...], ksize: list[int], dtype: Any, relu: bool
) -> None:
    rng = np.random.default_rng(shape[-1] * 10 + ksize[-1])
    x = _awkward(rng, shape, dtype)
    win, grad_win = _window("MaxPool", ksize), _window("MaxPoolGrad", ksize)
    with np.errstate(invalid="ignore"):
        y = pooling._max_pool(np, win, x, keep_first_max=True)
        np.testing.assert_array_equal(_bits(y), _bits(pooling._max_pool(np, win, x)))
        assert len(_first_max.KEPT) == 1
        g = _awkward(rng, y.shape, dtype)
        got = pooling._max_pool_grad(np, grad_win, x, y, g, True, relu_mask=relu)
        assert len(_first_max.KEPT) == 0  # taken by the gradient
        want = pooling._max_pool_grad(np, grad_win, x, y, g, True, relu_mask=relu)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_a_batch_of_several_blocks_keeps_every_blocks_first_maxima() -> None:
    # ~1.6 MB of input: pooled (and its positions kept) in more than one block of the batch.
    rng = np.random.default_rng(5)
    x = _awkward(rng, (48, 16, 16, 32), np.float32)
    win, grad_win = _window("MaxPool", [2, 2]), _window("MaxPoolGrad", [2, 2])
    y = pooling._max_pool(np, win, x, keep_first_max=True)
    g = _awkward(rng, y.shape, np.float32)
    with np.errstate(invalid="ignore"):
        got = pooling._max_pool_grad(np, grad_win, x, y, g, True, relu_mask=True)
        want = pooling._max_pool_grad(np, grad_win, x, y, g, True, relu_mask=True)
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_kept_first_maxima_serve_only_their_own_pool_and_go_with_its_output() -> None:
    win, grad_win = _window("MaxPool", [2, 2]), _window("MaxPoolGrad", [2, 2])
    x = np.zeros((4, 8, 8, 6), np.float32)  # every window's first maximum: its first tap
    y = pooling._max_pool(np, win, x, keep_first_max=True)
    g = np.arange(1, y.size + 1, dtype=np.float32).reshape(y.shape)
    # Another input with the same maxima, each window's at its last tap: routed there, not
    # where x's positions would send it.
    other = np.full(x.shape, -1.0, np.float32)
    other[:, 1::2, 1::2] = 0.0
    got = pooling._max_pool_grad(np, grad_win, other, y, g, True)
    np.testing.assert_array_equal(got[:, 1::2, 1::2], g)
    assert np.count_nonzero(got) == g.size
    assert len(_first_max.KEPT) == 0  # dropped by the mismatch
    y = pooling._max_pool(np, win, x, keep_first_max=True)
    assert len(_first_max.KEPT) == 1  # y's, until y goes
    del y
    gc.collect()
    assert len(_first_max.KEPT) == 0


def test_a_read_only_input_written_in_place_since_the_pool_finds_its_maxima_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A read-only input may be a variable's array, which sparse updates write in place (each
    # finished write moves in_place's write epoch).
    rng = np.random.default_rng(6)
    x = _awkward(rng, (2, 4, 4, 3), np.float32)
    x.flags.writeable = False
    win, grad_win = _window("MaxPool", [2, 2]), _window("MaxPoolGrad", [2, 2])
    key = pooling._first_max_key(grad_win, x)
    y = pooling._max_pool(np, win, x, keep_first_max=True)
    monkeypatch.setattr(in_place, "_write_epoch", in_place.write_epoch() + 1)
    assert _first_max.KEPT.take(x, y, key) is None
    y = pooling._max_pool(np, win, x, keep_first_max=True)
    entry = _first_max.KEPT.take(x, y, key)  # no write since: its own positions
    assert entry is not None
    _first_max.KEPT.give_back(entry)


def _marked(graph: Any, fetches: list[Any]) -> list[str]:
    nodes = {op.name: node_from_operation(op) for op in graph.get_operations()}
    fused = fuse_kernels(nodes, list(nodes), [], [t.name for t in fetches], [])
    return sorted(name for name, node in fused.items() if node.attrs.get(KEEP_FIRST_MAX))


def test_a_pool_whose_gradient_runs_in_the_step_is_marked_to_keep_its_first_maxima() -> None:
    x_val = np.random.default_rng(2).standard_normal((2, 8, 8, 3)).astype(np.float32)
    with tf.Graph().as_default() as graph:
        x = tf.constant(x_val)
        pooled = tf.nn.max_pool(tf.nn.relu(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
        plain = tf.nn.max_pool(x * 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="plain")
        loss = tf.reduce_sum(pooled * pooled) + tf.reduce_sum(plain)
        grads = tf.gradients(loss, [x])
    # "pool"'s gradient runs fused with the ReLU's, "plain"'s as a MaxPoolGrad.
    assert _marked(graph, grads) == ["plain", "pool"]
    with tf.Graph().as_default() as forward_only:
        alone = tf.nn.max_pool(tf.constant(x_val), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    assert _marked(forward_only, [alone]) == []  # no gradient to keep them for


def test_a_training_step_routes_by_the_kept_first_maxima(monkeypatch: pytest.MonkeyPatch) -> None:
    found: list[bool] = []
    take = _first_max.KEPT.take

    def observed(*args: Any) -> Any:
        entry = take(*args)
        found.append(entry is not None)
        return entry

    monkeypatch.setattr(_first_max.KEPT, "take", observed)
    rng = np.random.default_rng(4)
    x_val = _awkward(rng, (6, 8, 8, 4), np.float32)
    unfused = tf.ConfigProto(
        graph_options=tf.GraphOptions(
            optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
        )
    )
    with tf.Graph().as_default():
        x = tf.constant(x_val)
        y = tf.nn.max_pool(tf.nn.relu(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        (dx,) = tf.gradients(tf.reduce_sum(y * y), [x])
        with tf.Session() as sess, np.errstate(invalid="ignore"):
            got = sess.run(dx)
        assert found == [True]
        with tf.Session(config=unfused) as sess, np.errstate(invalid="ignore"):
            want = sess.run(dx)
    assert found == [True, False]  # unmarked without the graph optimizer: found again
    np.testing.assert_array_equal(_bits(got), _bits(want))
