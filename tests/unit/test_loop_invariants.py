"""A while loop's invariant nodes run once per run of the loop (runtime/loop_invariants.py),
and a body's products of one matrix by side by side column blocks of another are one
product (runtime/body_fusion.py, kernels/fused_products.py): the values are the unchanged
body's, bit for bit."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _cpu_gemm, functional, fused_products
from tfcluster.runtime import body_fusion

STEPS = 5
# Four gates of 16 columns: blocks BLAS sums alike alone and in one product.
WIDTH = 64


@pytest.fixture
def products(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int, int]]]:
    """(m, k, n) of every matrix product the MatMul kernels compute."""
    shapes: list[tuple[int, int, int]] = []
    real = _cpu_gemm.matmul

    def recording(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        shapes.append((a.shape[0], a.shape[1], b.shape[1]))
        return real(a, b, *args, **kwargs)

    monkeypatch.setattr(_cpu_gemm, "matmul", recording)
    yield shapes


def _no_hoisting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(functional, "find_invariants", lambda *a, **k: None)


def _no_fused_products(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(body_fusion, "_fused_products", list)


def _run_loop(
    step: Callable[[tf.Tensor, tf.Tensor, tf.Tensor], tf.Tensor],
    steps: int = STEPS,
    writes: bool = False,
) -> np.ndarray:
    """A loop over h of `steps` iterations of h = step(h, x, w), w a resource variable read
    in the body and x a fed matrix; writes: the body also adds to another variable."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, WIDTH)).astype(np.float32)
    w0 = rng.standard_normal((WIDTH, WIDTH)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        xs = tf.placeholder(tf.float32, [None, WIDTH])
        w = tf.get_variable("w", initializer=w0, use_resource=True)
        count = tf.get_variable("count", initializer=0.0, use_resource=True)

        def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
            out = step(h, xs, w.read_value())
            if writes:
                with tf.control_dependencies([count.assign_add(1.0)]):
                    out = tf.identity(out)
            return [i + 1, out]

        _, h = tf.while_loop(lambda i, h: i < steps, body, [tf.constant(0), tf.zeros([6, WIDTH])])
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        runs = [sess.run(h, {xs: x}) for _ in range(3)]  # the first run, then compiled plans
    for r in runs[1:]:
        np.testing.assert_array_equal(r, runs[0])
    return runs[0]


def _invariant_product(h: tf.Tensor, x: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    return tf.tanh(h + tf.matmul(x, w))


def test_a_product_of_captured_values_is_made_once_per_run_of_the_loop(
    monkeypatch: pytest.MonkeyPatch, products: list[tuple[int, int, int]]
) -> None:
    got = _run_loop(_invariant_product)
    assert products == [(6, WIDTH, WIDTH)] * 3  # once per run (three runs), not once per iteration
    _no_hoisting(monkeypatch)
    products.clear()
    want = _run_loop(_invariant_product)
    assert products == [(6, WIDTH, WIDTH)] * 3 * STEPS
    np.testing.assert_array_equal(got, want)


def test_a_loop_that_never_iterates_computes_no_invariant_node(
    products: list[tuple[int, int, int]],
) -> None:
    np.testing.assert_array_equal(_run_loop(_invariant_product, steps=0), np.zeros((6, WIDTH)))
    assert products == []


def test_a_body_that_writes_a_variable_reads_its_variables_every_iteration(
    products: list[tuple[int, int, int]],
) -> None:
    _run_loop(_invariant_product, writes=True)
    assert products == [(6, WIDTH, WIDTH)] * 3 * STEPS


def _gate_products(h: tf.Tensor, x: tf.Tensor, w: tf.Tensor) -> tf.Tensor:
    # h times each of w's four column blocks (an LSTM's gates), then the blocks' sum.
    gate = WIDTH // 4
    parts = [tf.matmul(h, w[:, gate * j : gate * (j + 1)]) for j in range(4)]
    return tf.tanh(tf.concat(parts, axis=1) + x)


def test_products_by_column_blocks_of_one_matrix_are_one_product(
    monkeypatch: pytest.MonkeyPatch, products: list[tuple[int, int, int]]
) -> None:
    got = _run_loop(_gate_products)
    assert (
        products == [(6, WIDTH, WIDTH)] * 3 * STEPS
    )  # one [6 x 64] by [64 x 64] product an iteration
    _no_fused_products(monkeypatch)
    products.clear()
    want = _run_loop(_gate_products)
    assert products == [(6, WIDTH, WIDTH // 4)] * 4 * 3 * STEPS
    np.testing.assert_array_equal(got, want)


def test_column_blocks_are_found_only_side_by_side_in_order() -> None:
    w = np.arange(4 * 48, dtype=np.float32).reshape(4, 48).copy()  # owns its values
    w.flags.writeable = False
    blocks = [w[:, 0:16], w[:, 16:32], w[:, 32:48]]
    assert fused_products.column_block(blocks) is w
    middle = fused_products.column_block(blocks[1:])
    assert middle is not None and np.array_equal(middle, w[:, 16:48])
    assert fused_products.column_block([blocks[1], blocks[0]]) is None  # out of order
    assert fused_products.column_block([blocks[0], blocks[2]]) is None  # a gap
    # Blocks BLAS would sum otherwise in one product (an edge narrower than its 16 columns).
    assert fused_products.column_block([w[:, 0:10], w[:, 10:20]]) is None
    assert fused_products.column_block([w[:, 0:8], w[:, 8:16]]) is None
    other = w.copy()
    assert fused_products.column_block([blocks[0], other[:, 16:32]]) is None  # two matrices
    f_order = np.asfortranarray(w)
    assert fused_products.column_block([f_order[:, 0:16], f_order[:, 16:32]]) is None
    wide = np.zeros((4, 48), np.float64)
    assert fused_products.column_block([wide[:, 0:16], wide[:, 16:32]]) is None  # float64


def test_a_clipped_value_against_a_constant_bound_keeps_its_nans_and_signed_zeros() -> None:
    x = np.array([[np.nan, -0.0, 0.0, 2.0, -3.0, 0.5]] * 4, np.float32)
    g = tf.Graph()
    with g.as_default():
        xs = tf.placeholder(tf.float32, [None, 6])
        lo = tf.constant(0.0)
        clipped = tf.maximum(tf.minimum(xs, 1.0), lo)
        neg_clipped = tf.minimum(tf.maximum(-0.0, xs), 1.0)
    with tf.Session(graph=g) as sess:
        for _ in range(3):  # spread once, then taken from the cache
            got, got_neg = sess.run([clipped, neg_clipped], {xs: x})
            want = np.maximum(np.minimum(x, np.float32(1.0)), np.float32(0.0))
            want_neg = np.minimum(np.maximum(np.float32(-0.0), x), np.float32(1.0))
            assert got.tobytes() == want.tobytes()
            assert got_neg.tobytes() == want_neg.tobytes()


def test_a_bound_read_from_a_variable_follows_its_updates() -> None:
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    g = tf.Graph()
    with g.as_default():
        bound = tf.get_variable("bound", initializer=1.0, use_resource=True)
        clipped = tf.minimum(tf.constant(x), bound.read_value())
        lower = bound.assign(0.5)
        subtract = bound.assign_sub(1.0)
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        for update, value in [(None, 1.0), (lower, 0.5), (subtract, -0.5), (None, -0.5)]:
            if update is not None:
                sess.run(update)
            np.testing.assert_array_equal(sess.run(clipped), np.minimum(x, np.float32(value)))
