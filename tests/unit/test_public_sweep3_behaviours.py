"""Behaviours of MorvanZhou's, golbin's and sjchoi86's TF1 tutorials against TF 1.15's
recorded answers (tests/tf_reference/record_public_sweep3.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.public_sweep3_cases import CASES

AREA = "public_sweep3"


@pytest.fixture(scope="module")
def operands() -> dict[str, object]:
    return {
        "expected": reference.case(AREA, "operand_dtypes_follow_the_first_input"),
        "actual": CASES["operand_dtypes_follow_the_first_input"](tf),
    }


def test_ops_convert_their_operands_in_order_as_tf_op_def_library(
    operands: dict[str, dict[str, dict[str, object]]],
) -> None:
    expected = operands["expected"]["outcomes"]
    actual = operands["actual"]["outcomes"]
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        assert actual[name] == want, name


def test_values_of_operands_cast_to_the_first_inputs_dtype(
    operands: dict[str, dict[str, dict[str, object]]],
) -> None:
    expected = operands["expected"]["values"]
    actual = operands["actual"]["values"]
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        got = np.asarray(actual[name])
        assert got.dtype == np.asarray(want).dtype, name
        np.testing.assert_array_equal(got, np.asarray(want), err_msg=name)


def _bits(value: object) -> list[object]:
    """Floats as their exact bits (hex), other values as they are."""
    flat = np.asarray(value).ravel()
    return [float(v).hex() for v in flat] if flat.dtype.kind == "f" else flat.tolist()


def test_sampled_expected_counts_use_glibcs_float_log1p_and_expm1_as_tf() -> None:
    expected = reference.case(AREA, "sampled_expected_counts_and_nce_steps")
    actual = CASES["sampled_expected_counts_and_nce_steps"](tf)
    assert sorted(actual["samplers"]) == sorted(expected["samplers"])
    for name, want in expected["samplers"].items():
        for part in ("values", "true", "sampled"):
            got = actual["samplers"][name][part]
            assert np.asarray(got).dtype == np.asarray(want[part]).dtype, (name, part)
            assert _bits(got) == _bits(want[part]), (name, part)
    # The nce_loss's per-example losses and Adam's steps to TF's bits.
    assert [_bits(v) for v in actual["per_example"]] == [_bits(v) for v in expected["per_example"]]
    assert _bits(actual["losses"]) == _bits(expected["losses"])


def test_missing_names_raise_attribute_errors_naming_tfs_modules() -> None:
    expected = reference.case(AREA, "missing_attribute_messages")
    actual = CASES["missing_attribute_messages"](tf)
    assert actual == expected


def test_products_whose_shapes_do_not_fit_fail_naming_the_node_as_tf() -> None:
    expected = reference.case(AREA, "matmul_shape_errors")
    actual = CASES["matmul_shape_errors"](tf)
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        assert actual[name] == want, name


def test_unsorted_segment_sums_add_rows_in_order_in_their_dtype_as_tf() -> None:
    expected = reference.case(AREA, "unsorted_segment_sums_and_sparse_adam")
    actual = CASES["unsorted_segment_sums_and_sparse_adam"](tf)
    assert sorted(actual["sums"]) == sorted(expected["sums"])
    for name, want in expected["sums"].items():
        assert np.asarray(actual["sums"][name]).dtype == np.asarray(want).dtype, name
        assert _bits(actual["sums"][name]) == _bits(want), name
    # A gather's gradient made dense, and sparse Adam's steps over repeated ids.
    assert [_bits(g) for g in actual["dense_grads"]] == [_bits(g) for g in expected["dense_grads"]]
    assert [_bits(t) for t in actual["tables"]] == [_bits(t) for t in expected["tables"]]


def test_library_functions_give_their_inner_ops_operands_of_tfs_dtypes() -> None:
    expected = reference.case(AREA, "library_functions_of_other_dtypes")
    actual = CASES["library_functions_of_other_dtypes"](tf)
    assert actual == expected
