"""Behaviours of Stanford's CS20 and MorvanZhou's TF1 tutorials against TF 1.15's recorded
answers (tests/tf_reference/record_public_sweep2.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.public_sweep2_cases import CASES

AREA = "public_sweep2"


def _bits(values: list[np.ndarray]) -> list[list[object]]:
    """Floats as their exact bits (hex), other values as they are."""
    out: list[list[object]] = []
    for a in values:
        flat = np.asarray(a).ravel()
        out.append([float(v).hex() for v in flat] if flat.dtype.kind == "f" else flat.tolist())
    return out


def test_matmul_with_one_output_column_sums_as_tfs_matrix_vector_product() -> None:
    expected = reference.case(AREA, "matmul_one_output_column")["values"]
    actual = CASES["matmul_one_output_column"](tf)["values"]
    assert [a.dtype for a in actual] == [np.asarray(e).dtype for e in expected]
    assert [a.shape for a in actual] == [np.asarray(e).shape for e in expected]
    # TF's bits, not BLAS's (which differ in the last place for about half the outputs).
    assert _bits(actual) == _bits(expected)


def test_constants_are_pushed_down_add_and_mul_trees_as_tfs_constant_folding_does() -> None:
    expected = reference.case(AREA, "constant_push_down")
    actual = CASES["constant_push_down"](tf)
    for part in ("trees", "kept", "folding_off"):
        assert sorted(actual[part]) == sorted(expected[part])
        for name, want in expected[part].items():
            got = actual[part][name]
            assert _bits(got if isinstance(got, list) else [got]) == _bits(
                want if isinstance(want, list) else [want]
            ), f"{part}/{name}"


def test_linear_regression_on_numpy_constants_trains_to_tfs_bits() -> None:
    expected = reference.case(AREA, "linear_regression_on_constants")["steps"]
    actual = CASES["linear_regression_on_constants"](tf)["steps"]
    assert _bits([actual]) == _bits([expected])


def test_from_generator_casts_what_the_generator_yields_as_numpy_asarray() -> None:
    expected = reference.case(AREA, "from_generator_casts_yielded_values")
    actual = CASES["from_generator_casts_yielded_values"](tf)
    assert sorted(actual) == sorted(expected)
    assert actual.pop("letters_as_int64") == expected.pop("letters_as_int64")
    for name, want in expected.items():
        reference.assert_close(actual[name], want)
