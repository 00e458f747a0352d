"""CPU matrix products shared between the caller and one helper thread (kernels/_cpu_gemm.py):
the same values as numpy's product for every shape and dtype class, and BLAS's thread count
given back afterwards."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from tfcluster.kernels import _cpu_gemm
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
