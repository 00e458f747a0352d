"""CPU matrix products shared between the caller and one helper thread (kernels/_cpu_gemm.py):
the same values as numpy's product for every shape and dtype class, BLAS's thread count given
back afterwards, held once for a row of products (a while loop's), and a forked child's
products not waiting for the parent's helper thread."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.kernels import _cpu_gemm
from tfcluster.runtime import thread_budget
from threadpoolctl import threadpool_info


@pytest.mark.parametrize(
    "m,k,n",
    [(64, 384, 1024), (1024, 256, 64), (3, 5, 7), (1, 4096, 1), (65, 129, 4097)],
    ids=["wide-split-by-columns", "tall-split-by-rows", "small", "vector", "odd-halves"],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_product_equals_numpys(m: int, k: int, n: int, dtype: type) -> None:
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    got = _cpu_gemm.matmul(a, b)
    assert got.dtype == np.dtype(dtype) and got.shape == (m, n)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(got, a @ b, rtol=tol, atol=tol * k)


@pytest.mark.parametrize("m,k,n", [(32, 512, 3136), (8, 300, 700), (64, 1024, 1024)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_few_rows_times_a_transposed_matrix_go_as_the_swapped_product(
    m: int, k: int, n: int, dtype: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    # x @ w.T (a dense layer's input gradient) as (w @ x.T).T: numpy's product's values, in
    # rows, and the swapped product is not swapped back.
    rng = np.random.default_rng(m + k + n)
    x = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k)).astype(dtype)
    calls: list[tuple[tuple[int, int], bool]] = []
    through = _cpu_gemm.matmul

    def recorded(a: Any, b: Any, blas_threads_from: int = _cpu_gemm.BLAS_THREADS_FROM) -> Any:
        calls.append((a.shape, bool(b.flags.c_contiguous)))
        return through(a, b, blas_threads_from)

    monkeypatch.setattr(_cpu_gemm, "matmul", recorded)
    got = _cpu_gemm.matmul(x, w.T)
    assert calls == [((m, k), False), ((n, k), False)]
    assert got.flags.c_contiguous and got.dtype == np.dtype(dtype) and got.shape == (m, n)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    want = x.astype(np.complex128) @ w.T.astype(np.complex128)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * k)


def test_many_rows_or_contiguous_operands_are_not_swapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((65, 512)).astype(np.float32)
    w = rng.standard_normal((3136, 512)).astype(np.float32)
    swapped: list[bool] = []
    through = _cpu_gemm._swaps

    def recorded(a: Any, b: Any) -> bool:
        swapped.append(through(a, b))
        return swapped[-1]

    monkeypatch.setattr(_cpu_gemm, "_swaps", recorded)
    np.testing.assert_allclose(_cpu_gemm.matmul(x, w.T), x @ w.T, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(
        _cpu_gemm.matmul(x[:32], np.ascontiguousarray(w.T)), x[:32] @ w.T, rtol=1e-4, atol=1e-3
    )
    assert swapped == [False, False]


def test_transposed_views_and_integers_are_multiplied_as_numpy_does() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((512, 64)).astype(np.float32).T  # a transposed view
    b = rng.standard_normal((1024, 512)).astype(np.float32).T
    np.testing.assert_allclose(_cpu_gemm.matmul(a, b), a @ b, rtol=1e-4, atol=1e-3)
    ints = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert _cpu_gemm.matmul(ints, ints.T).tolist() == (ints @ ints.T).tolist()


def test_blas_threads_are_given_back_after_products_from_several_threads() -> None:
    before = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    a = np.ones((64, 384), np.float32)
    b = np.ones((384, 1024), np.float32)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                assert float(_cpu_gemm.matmul(a, b)[0, 0]) == 384.0
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    after = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert after == before


@pytest.mark.parametrize("m,n", [(64, 1024), (1024, 64), (40, 3)])
def test_the_callers_piece_is_the_larger_of_two(m: int, n: int) -> None:
    a = np.ones((m, 5), np.float32)
    b = np.ones((5, n), np.float32)
    out = np.empty((m, n), np.float32)
    (a0, b0, out0), (a1, b1, out1) = _cpu_gemm._pieces(a, b, out, 2)
    axis = 1 if n >= m else 0
    assert out0.shape[axis] + out1.shape[axis] == max(m, n)
    assert out0.shape[axis] > out1.shape[axis]
    assert (a0 @ b0).shape == out0.shape and (a1 @ b1).shape == out1.shape


def _blas_limits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pushed: list[int] = []
    real = thread_budget.push_blas_limit

    def recording(n: int) -> None:
        pushed.append(n)
        real(n)

    monkeypatch.setattr(thread_budget, "push_blas_limit", recording)
    return pushed


def test_products_in_a_row_hold_blas_at_one_thread_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 384)).astype(np.float32)
    b = rng.standard_normal((384, 1024)).astype(np.float32)
    pushed = _blas_limits(monkeypatch)
    for _ in range(3):
        _cpu_gemm.matmul(a, b)
    assert pushed == [1, 1, 1]  # alone, each product holds BLAS at one thread itself
    pushed.clear()
    with _cpu_gemm.products_in_a_row():
        assert _blas_counts() == {1}
        for _ in range(3):
            np.testing.assert_allclose(_cpu_gemm.matmul(a, b), a @ b, rtol=1e-4, atol=1e-3)
    assert pushed == [1]


def test_a_product_big_enough_for_blas_threads_gets_them_inside_a_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a = np.ones((64, 64), np.float32)
    pushed = _blas_limits(monkeypatch)
    with _cpu_gemm.products_in_a_row():
        got = _cpu_gemm.matmul(a, a, blas_threads_from=_cpu_gemm.BLAS_SINGLE_BELOW)
    assert float(got[0, 0]) == 64.0
    assert pushed == [1, thread_budget.current().intra]


def _blas_counts() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_a_while_loop_holds_blas_at_one_thread_for_all_its_iterations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(6)
    w0 = rng.standard_normal((384, 384)).astype(np.float32) / 20
    g = tf.Graph()
    with g.as_default():
        w = tf.constant(w0)
        x = tf.placeholder(tf.float32, [64, 384])
        _, y = tf.while_loop(lambda i, h: i < 5, lambda i, h: (i + 1, tf.matmul(h, w)), [0, x])
    x0 = rng.standard_normal((64, 384)).astype(np.float32)
    want = x0
    for _ in range(5):
        want = want @ w0
    with tf.Session(graph=g) as sess:
        pushed = _blas_limits(monkeypatch)
        got = sess.run(y, {x: x0})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert pushed == [1]  # once for the loop, not once per iteration's product


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_childs_products_do_not_wait_for_the_parents_helper() -> None:
    a = np.ones((64, 384), np.float32)
    b = np.ones((384, 1024), np.float32)
    assert float(_cpu_gemm.matmul(a, b)[0, 0]) == 384.0  # the parent's helper exists now
    pid = os.fork()
    if pid == 0:  # the child: its product must not wait for the parent's helper thread
        ok = float(_cpu_gemm.matmul(a, b)[-1, -1]) == 384.0
        os._exit(0 if ok else 1)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's product hung")


def test_the_helper_thread_lets_go_of_a_products_operands_when_it_is_through() -> None:
    # The helper's pieces are views of the operands: kept while it waits for the next
    # product, they would keep a variable's array held, and an update would then wait for
    # it and copy it (kernels/in_place.py) instead of writing it in place.
    helper = _cpu_gemm._Helper()
    operand = np.ones((256, 256), np.float32)
    alone = sys.getrefcount(operand)
    sums: list[float] = []
    helper._work = _summing(operand[:, :128], sums)
    helper._go.release()
    helper._done.acquire()
    assert sums == [256 * 128]
    assert sys.getrefcount(operand) == alone


def _summing(view: np.ndarray, into: list[float]) -> Any:
    def work() -> None:
        into.append(float(view.sum()))

    return work
