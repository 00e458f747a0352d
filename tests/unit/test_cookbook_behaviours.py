"""Behaviours of the TF1 cookbook's regression and classification programs that printed other
last digits on tfcluster, against TF 1.15's recorded answers (record_cookbook.py): every value
bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.cookbook_cases import CASES

AREA = "cookbook"


def _same_bits(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        got = np.asarray(actual[key])
        want = np.asarray(want)
        assert got.dtype == want.dtype, key
        np.testing.assert_array_equal(got, want, err_msg=key)


def test_matrix_vector_products_are_summed_in_tfs_order() -> None:
    _same_bits(CASES["matvec_products"](tf), reference.case(AREA, "matvec_products"))


def test_sums_over_axes_merged_with_size_one_neighbours_are_tfs_and_size_one_axes_copy() -> None:
    _same_bits(CASES["unit_axis_reductions"](tf), reference.case(AREA, "unit_axis_reductions"))


def test_float32_log1p_rounds_as_tfs_cpu_kernel() -> None:
    _same_bits(CASES["log1p_float32"](tf), reference.case(AREA, "log1p_float32"))


def test_neg_gives_positive_zeros_in_packets_and_negative_zeros_in_the_tail() -> None:
    _same_bits(CASES["neg_zero_signs"](tf), reference.case(AREA, "neg_zero_signs"))


@pytest.mark.parametrize("case", ["addn_input_order", "addn_input_order_rewriter_off"])
def test_add_n_sums_inputs_in_name_order_unless_the_arithmetic_optimizer_is_off(
    case: str,
) -> None:
    _same_bits(CASES[case](tf), reference.case(AREA, case))


def test_cookbook_linear_and_logistic_regression_train_to_tfs_bits() -> None:
    _same_bits(CASES["linear_models_training"](tf), reference.case(AREA, "linear_models_training"))


def test_shuffled_numpy_input_fn_feeds_every_row_once_per_epoch() -> None:
    _same_bits(
        CASES["numpy_input_fn_shuffled_epochs"](tf),
        reference.case(AREA, "numpy_input_fn_shuffled_epochs"),
    )


def test_division_by_a_constant_is_a_product_with_its_reciprocal() -> None:
    _same_bits(CASES["division_by_constant"](tf), reference.case(AREA, "division_by_constant"))
