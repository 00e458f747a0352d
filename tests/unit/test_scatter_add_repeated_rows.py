"""scatter_add with repeated rows: the same bits as np.add.at (each row's values added in index
order), with few repeats, many repeats of one row, a skewed index, and values of another dtype."""

from __future__ import annotations

import numpy as np
import pytest
from tfcluster.kernels import _xp_util as u


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def _case(rng: np.random.Generator, dtype: str, n: int, rows: int, width: int) -> tuple:
    index = rng.integers(0, rows, n)
    values: np.ndarray
    target: np.ndarray
    if np.dtype(dtype).kind == "f":
        values = rng.standard_normal((n, width)) * 10 ** rng.uniform(-6, 6, (n, width))
        target = rng.standard_normal((rows, width)) * 1e3
        values[rng.random((n, width)) < 0.05] = -0.0
        target[rng.random((rows, width)) < 0.1] = -0.0
        values[rng.random((n, width)) < 0.01] = np.nan
    else:
        values = rng.integers(-1000, 1000, (n, width))
        target = rng.integers(-1000, 1000, (rows, width))
    return target.astype(dtype), index, values.astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_repeated_rows_add_up_bit_for_bit_as_add_at(dtype: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(60):
        target, index, values = _case(
            rng, dtype, int(rng.integers(2, 300)), int(rng.integers(1, 40)), int(rng.integers(1, 9))
        )
        want, got = target.copy(), target.copy()
        with np.errstate(all="ignore"):  # float16 sums overflow to inf on both sides
            np.add.at(want, index, values)
            u.scatter_add(np, got, index, values)
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_rows_with_many_repeats_are_added_in_index_order() -> None:
    rng = np.random.default_rng(1)
    target, index, values = _case(rng, "float32", 128, 300, 16)
    index[:40] = 3  # one row repeated 40 times, as a frequent word in an embedding batch
    got = target.copy()
    u._add_repeated_rows(got, index, values)
    want = target.copy()
    np.add.at(want, index, values)
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_a_skewed_index_gives_the_same_bits() -> None:
    rng = np.random.default_rng(2)
    n = 4000
    index = np.concatenate([np.zeros(n // 2, np.int64), np.arange(1, n // 2 + 1)])
    rng.shuffle(index)
    target = rng.standard_normal((n // 2 + 1, 300)).astype(np.float32)
    values = rng.standard_normal((n, 300)).astype(np.float32)
    got = target.copy()
    u.scatter_add(np, got, index, values)
    want = target.copy()
    np.add.at(want, index, values)
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_values_of_another_dtype_are_summed_as_add_at_sums_them() -> None:
    rng = np.random.default_rng(3)
    target, index, values = _case(rng, "float32", 64, 5, 4)
    wide = values.astype(np.float64) * 1.0000001
    got = target.copy()
    u.scatter_add(np, got, index, wide)
    want = target.copy()
    np.add.at(want, index, wide)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_a_vector_with_repeated_indices_gets_add_at_bits(dtype: str) -> None:
    # nce biases: one value per sampled or labelled word, frequent words many times over.
    rng = np.random.default_rng(4)
    for n in (1, 192, 5000):
        target, index, values = _case(rng, dtype, n, 50, 1)
        target, values = target[:, 0].copy(), values[:, 0].copy()
        want, got = target.copy(), target.copy()
        np.add.at(want, index, values)
        u.scatter_add(np, got, index, values)
        np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("n", [66, 192, 255, 256, 300])
def test_embedding_sized_updates_on_both_sides_of_the_flat_limit_get_add_at_bits(
    n: int,
) -> None:
    # Rows of 128 floats (word2vec's): up to 256 of them go element by element, more in passes.
    rng = np.random.default_rng(n)
    target, index, values = _case(rng, "float32", n, 40, 128)
    want, got = target.copy(), target.copy()
    np.add.at(want, index, values)
    u.scatter_add(np, got, index, values)
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_updates_into_a_strided_view_keep_add_at_bits() -> None:
    rng = np.random.default_rng(5)
    base, index, values = _case(rng, "float32", 100, 20, 8)
    wide = np.repeat(base, 2, axis=1)
    want, got = wide.copy(), wide.copy()
    np.add.at(want[:, ::2], index, values)
    u.scatter_add(np, got[:, ::2], index, values)
    np.testing.assert_array_equal(_bits(got), _bits(want))
