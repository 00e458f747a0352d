"""Float32 matrix products rounded as TF 1.15's CPU kernels round them, against its recorded
bits (tests/tf_reference/record_float32_products.py): MKL-DNN's sgemm order for products of
2 to 8 output columns, and grappler's MatMul -> BiasAdd fusion, whose product is that sgemm's
even for a dense layer of one unit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.float32_product_cases import CASES

AREA = "float32_products"


def _bits(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=np.float32).view(np.uint32)


def _same_bits(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = actual[name]
        pairs = zip(got, want) if name.startswith("apart_") else [(got, want)]
        for g, w in pairs:
            np.testing.assert_array_equal(_bits(g), _bits(w), name)


def test_narrow_products_sum_as_tfs_sgemm() -> None:
    _same_bits(CASES["narrow_products"](tf), reference.case(AREA, "narrow_products"))


def test_a_product_feeding_only_a_bias_add_is_fused_as_tfs_remapper_fuses_it() -> None:
    name = "products_feeding_a_bias_add"
    _same_bits(CASES[name](tf), reference.case(AREA, name))


@pytest.mark.parametrize("step", range(6))
def test_a_keras_dense_layer_of_one_unit_trains_to_tfs_bits(step: int) -> None:
    name = "keras_dense_of_one_unit_trains_as_tf"
    actual = CASES[name](tf)["steps"][step]
    expected = reference.case(AREA, name)["steps"][step]
    for got, want in zip(actual, expected):
        np.testing.assert_array_equal(_bits(got), _bits(want))


def _blas_sums_rows_as_tf() -> bool:
    """Whether this machine's BLAS sums a product of two row-major operands in TF's sgemm
    order (OpenBLAS's AVX-512 kernels do; its Haswell ones, OPENBLAS_CORETYPE=Haswell, sum
    in another order, and then no product wider than 8 columns has TF's bits here)."""
    name = "wide_products_in_rows"
    try:
        _same_bits(CASES[name](tf), reference.case(AREA, name))
    except AssertionError:
        return False
    return True


def _needs_tf_order_blas() -> None:
    if not _blas_sums_rows_as_tf():
        pytest.skip("this machine's BLAS kernels sum row-major products in another order than TF")


def test_a_transposed_right_operand_sums_as_tf_where_blas_sums_rows_as_tf() -> None:
    _needs_tf_order_blas()
    name = "products_with_a_transposed_right_operand"
    _same_bits(CASES[name](tf), reference.case(AREA, name))


def test_a_keras_mlp_trains_to_tfs_bits_through_a_short_last_batch() -> None:
    _needs_tf_order_blas()
    name = "keras_mlp_trains_as_tf_with_a_short_last_batch"
    actual = CASES[name](tf)["weights"]
    expected = reference.case(AREA, name)["weights"]
    for got, want in zip(actual, expected):
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_a_transposed_right_operand_reaches_blas_in_rows() -> None:
    """Whatever the machine's BLAS: a small x @ w.T is computed from w.T copied to rows (the
    layout whose order is TF's where the BLAS sums rows as TF does), and equals numpy's."""
    from tfcluster.kernels import _cpu_gemm

    rng = np.random.default_rng(3)
    x = rng.standard_normal((20, 64), dtype=np.float32)
    w = rng.standard_normal((48, 64), dtype=np.float32)
    seen: list[tuple[bool, bool]] = []
    real = np.matmul

    def spy(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((a.flags.c_contiguous, b.flags.c_contiguous))
        return real(a, b, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_cpu_gemm.np, "matmul", spy)
        out = _cpu_gemm.matmul(x, w.T)
    assert seen == [(True, True)]
    np.testing.assert_allclose(out, x @ w.T, rtol=1e-5, atol=1e-5)
