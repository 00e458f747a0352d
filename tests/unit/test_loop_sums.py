"""A while loop variable that adds a product (or a bias gradient) of each iteration's values
is computed once after the loop from the iterations' factors (kernels/_loop_sums.py): the
same values as adding term by term, one big product instead of one per iteration, and loops
whose sums something else reads keep adding term by term."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _cpu_gemm, _loop_sums, _mkldnn_sgemm, functional

STEPS = 6


@pytest.fixture
def products(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int, int]]]:
    """(m, k, n) of every matrix product the MatMul kernels compute."""
    shapes: list[tuple[int, int, int]] = []

    def recorded(real: Any) -> Any:
        def recording(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
            out = real(a, b, *args, **kwargs)
            if out is not None:
                shapes.append((a.shape[0], a.shape[1], b.shape[1]))
            return out

        return recording

    # BLAS's products, and the narrow ones summed in TF's sgemm order.
    monkeypatch.setattr(_cpu_gemm, "matmul", recorded(_cpu_gemm.matmul))
    monkeypatch.setattr(_mkldnn_sgemm, "product", recorded(_mkldnn_sgemm.product))
    yield shapes


def _no_loop_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(functional, "find_loop_sums", lambda *a, **k: [])


def _summed_products(ta: bool, tb: bool) -> tuple[tf.Graph, tf.Tensor, np.ndarray]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((STEPS, 5, 3) if ta else (STEPS, 3, 5)).astype(np.float32)
    b = rng.standard_normal((STEPS, 4, 5) if tb else (STEPS, 5, 4)).astype(np.float32)
    want = sum((a[i].T if ta else a[i]) @ (b[i].T if tb else b[i]) for i in range(STEPS))
    g = tf.Graph()
    with g.as_default():
        ca, cb = tf.constant(a), tf.constant(b)

        def body(i: tf.Tensor, acc: tf.Tensor) -> list[tf.Tensor]:
            term = tf.matmul(tf.gather(ca, i), tf.gather(cb, i), transpose_a=ta, transpose_b=tb)
            return [i + 1, acc + term]

        _, total = tf.while_loop(lambda i, acc: i < STEPS, body, [tf.constant(0), tf.zeros([3, 4])])
    return g, total, np.asarray(want)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_a_loop_summing_products_multiplies_once_after_it(
    ta: bool, tb: bool, products: list[tuple[int, int, int]]
) -> None:
    g, total, want = _summed_products(ta, tb)
    with tf.Session(graph=g) as sess:
        for _ in range(3):  # the first run, then the loop body's compiled plan
            products.clear()
            np.testing.assert_allclose(sess.run(total), want, rtol=1e-5, atol=1e-5)
            assert products == [(3, 5 * STEPS, 4)]  # one product, summing over every step


def test_chunks_of_iterations_are_multiplied_as_the_kept_factors_grow(
    monkeypatch: pytest.MonkeyPatch, products: list[tuple[int, int, int]]
) -> None:
    # An iteration keeps a [5 x 3] and a [5 x 4] float32 factor: 140 bytes.
    monkeypatch.setattr(_loop_sums, "CHUNK_BYTES", 2 * 140)
    g, total, want = _summed_products(True, False)
    with tf.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(total), want, rtol=1e-5, atol=1e-5)
    assert products == [(3, 10, 4)] * (STEPS // 2)


def test_a_sum_read_elsewhere_in_the_loop_is_added_term_by_term(
    products: list[tuple[int, int, int]],
) -> None:
    rng = np.random.default_rng(2)
    a = rng.standard_normal((STEPS, 3, 5)).astype(np.float32)
    b = rng.standard_normal((STEPS, 5, 4)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        ca, cb = tf.constant(a), tf.constant(b)

        def body(i: tf.Tensor, acc: tf.Tensor, seen: tf.Tensor) -> list[tf.Tensor]:
            term = tf.matmul(tf.gather(ca, i), tf.gather(cb, i))
            return [i + 1, acc + term, seen + tf.reduce_sum(acc)]

        _, total, seen = tf.while_loop(
            lambda i, acc, seen: i < STEPS,
            body,
            [tf.constant(0), tf.zeros([3, 4]), tf.constant(0.0)],
        )
    want_total, want_seen = np.zeros((3, 4), np.float32), 0.0
    for i in range(STEPS):
        want_seen += want_total.sum()
        want_total = want_total + a[i] @ b[i]
    with tf.Session(graph=g) as sess:
        got_total, got_seen = sess.run([total, seen])
    np.testing.assert_allclose(got_total, want_total, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_seen, want_seen, rtol=1e-5)
    assert products == [(3, 5, 4)] * STEPS


def test_factors_that_do_not_join_are_multiplied_one_by_one() -> None:
    """Iterations whose terms differ in shape (broadcast into the sum) cannot be joined:
    each term is made and added as the body would have."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((STEPS, 5, 3)).astype(np.float32)
    b = rng.standard_normal((STEPS, 5, 4)).astype(np.float32)
    want = np.zeros((3, 4), np.float32)
    for i in range(STEPS):
        rows = 1 if i % 2 else 3
        want = want + a[i][:, :rows].T @ b[i]
    g = tf.Graph()
    with g.as_default():
        ca, cb = tf.constant(a), tf.constant(b)

        def body(i: tf.Tensor, acc: tf.Tensor) -> list[tf.Tensor]:
            rows = tf.where(tf.equal(i % 2, 1), 1, 3)
            part = tf.slice(tf.gather(ca, i), [0, 0], tf.stack([5, rows]))
            return [i + 1, acc + tf.matmul(part, tf.gather(cb, i), transpose_a=True)]

        _, total = tf.while_loop(lambda i, acc: i < STEPS, body, [tf.constant(0), tf.zeros([3, 4])])
    with tf.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(total), want, rtol=1e-5, atol=1e-5)


def _rnn_gradients() -> tuple[tf.Graph, list[tf.Tensor], dict[Any, np.ndarray]]:
    rng = np.random.default_rng(4)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [4, STEPS, 3])
        outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
        loss = tf.reduce_sum(tf.square(outputs))
        grads = tf.gradients(loss, [x, *tf.trainable_variables()])
        init = tf.global_variables_initializer()
    return g, [init, *grads], {x: rng.standard_normal((4, STEPS, 3)).astype(np.float32)}


def _run_rnn_gradients() -> list[np.ndarray]:
    g, (init, *grads), feeds = _rnn_gradients()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        sess.run(grads, feeds)
        return list(sess.run(grads, feeds))


def test_an_rnn_gradient_sums_its_weight_gradients_after_the_loop(
    monkeypatch: pytest.MonkeyPatch, products: list[tuple[int, int, int]]
) -> None:
    got = _run_rnn_gradients()
    # The kernel's gradient: one product over every step's [8 x 4] by [4 x 20] factors.
    assert (8, 4 * STEPS, 20) in products
    assert (8, 4, 20) not in products
    _no_loop_sums(monkeypatch)
    products.clear()
    want = _run_rnn_gradients()
    assert products.count((8, 4, 20)) == 2 * STEPS  # per iteration, term by term (two runs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_term_of_the_wrong_shape_fails_as_the_kernel_does() -> None:
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [None, None])

        def body(i: tf.Tensor, acc: tf.Tensor) -> list[tf.Tensor]:
            return [i + 1, acc + tf.matmul(a, tf.ones([2, 2]), transpose_a=True)]

        _, total = tf.while_loop(lambda i, acc: i < 3, body, [tf.constant(0), tf.zeros([2, 2])])
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(total, {a: np.ones((3, 2), np.float32)})
        np.testing.assert_allclose(sess.run(total, {a: np.ones((2, 2), np.float32)}), 6.0)


def test_a_loop_that_runs_no_iteration_returns_the_sum_it_was_given(
    products: list[tuple[int, int, int]],
) -> None:
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.int32, [])
        a = tf.placeholder(tf.float32, [2, 4])
        start = tf.fill([2, 2], 3.0)

        def body(i: tf.Tensor, acc: tf.Tensor) -> list[tf.Tensor]:
            return [i + 1, acc + tf.matmul(a, tf.ones([4, 2]))]

        _, total = tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), start])
    with tf.Session(graph=g) as sess:
        ones = np.ones((2, 4), np.float32)
        np.testing.assert_allclose(sess.run(total, {n: 0, a: ones}), 3.0)
        assert products == []
        np.testing.assert_allclose(sess.run(total, {n: 5, a: ones}), 3.0 + 5 * 4)
        assert products == [(2, 4 * 5, 2)]


def _gate_per_part_gradients() -> tuple[tf.Graph, list[tf.Tensor]]:
    """A loop whose step splits its kernel and bias per gate and slices its recurrent kernel
    per gate, as TF 1.15's Keras LSTM step does: the gradients of those are a ConcatV2 of
    four products (of four bias gradients) and an AddN of four StridedSliceGrads."""
    rng = np.random.default_rng(5)
    units = 5
    g = tf.Graph()
    with g.as_default():
        xs = tf.constant(rng.standard_normal((STEPS, 4, 3)).astype(np.float32))
        kernel = tf.constant(rng.standard_normal((3, 4 * units)).astype(np.float32))
        bias = tf.constant(rng.standard_normal(4 * units).astype(np.float32))
        recurrent = tf.constant(rng.standard_normal((units, 4 * units)).astype(np.float32))

        def body(i: tf.Tensor, h: tf.Tensor) -> list[tf.Tensor]:
            x = tf.gather(xs, i)
            kernels = tf.split(kernel, 4, axis=1)
            biases = tf.split(bias, 4, axis=0)
            columns = [slice(0, units), slice(units, 2 * units), slice(2 * units, 3 * units)]
            slices = [recurrent[:, c] for c in columns] + [recurrent[:, 3 * units :]]
            z = [
                tf.nn.bias_add(tf.matmul(x, k), b) + tf.matmul(h, r)
                for k, b, r in zip(kernels, biases, slices)
            ]
            return [i + 1, tf.tanh(z[0]) * tf.sigmoid(z[1]) + tf.tanh(z[2]) * z[3]]

        _, h = tf.while_loop(lambda i, h: i < STEPS, body, [tf.constant(0), tf.zeros([4, units])])
        grads = tf.gradients(tf.reduce_sum(tf.square(h)), [kernel, bias, recurrent])
    return g, grads


def _run_gate_per_part_gradients() -> list[np.ndarray]:
    g, grads = _gate_per_part_gradients()
    with tf.Session(graph=g) as sess:
        sess.run(grads)
        return list(sess.run(grads))


def test_gradients_placed_per_gate_sum_each_gate_after_the_loop(
    monkeypatch: pytest.MonkeyPatch, products: list[tuple[int, int, int]]
) -> None:
    got = _run_gate_per_part_gradients()
    # Per gate, one product over every step's factors: the kernel's [3 x 4] by [4 x 5], the
    # recurrent kernel's [5 x 4] by [4 x 5]; none per iteration.
    assert products.count((3, 4 * STEPS, 5)) == 2 * 4  # two runs
    assert products.count((5, 4 * STEPS, 5)) == 2 * 4
    assert (3, 4, 5) not in products and (5, 4, 5) not in products
    _no_loop_sums(monkeypatch)
    products.clear()
    want = _run_gate_per_part_gradients()
    assert products.count((3, 4, 5)) == 2 * 4 * STEPS  # per iteration and gate, term by term
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
