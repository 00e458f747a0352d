"""Behaviours of TF1 research programs (a key-value memory that replaces its oldest slots with
an unsorted top_k, a model that drops out with keep_prob=0.3) against TF 1.15's recorded
answers (tests/tf_reference/record_research_program.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.research_program_cases import CASES

AREA = "research_program"


def test_an_unsorted_top_k_gives_its_indices_in_the_order_of_tfs_bounded_heap() -> None:
    name = "top_k_unsorted_order"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for row, want in expected.items():
        assert actual[row] == want, row


def test_dropout_warns_of_a_large_python_rate_for_the_first_five_calls() -> None:
    reference.assert_case_equal(
        AREA, "large_dropout_rate_warnings", CASES["large_dropout_rate_warnings"](tf)
    )


def test_multi_output_ops_and_their_fetched_results_are_tfs_namedtuples() -> None:
    name = "multi_output_results_as_namedtuples"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_a_tensor_in_a_variables_collection_is_left_out_of_an_export_with_tfs_warning() -> None:
    name = "tensor_in_a_variables_collection_on_export"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_a_product_of_negative_zeros_is_positive_zero_as_tfs_sgemm_gives() -> None:
    name = "products_with_negative_zeros"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_weight_decay_of_large_weights_is_tfs_to_float32_rounding() -> None:
    """Past Eigen's repeated order, within about an ulp of TF's sum (BLAS's dot was ~4e-6
    off: printed weight-decay losses differed from the fifth digit)."""
    want = reference.case(AREA, "weight_decay_of_large_weights")
    got = CASES["weight_decay_of_large_weights"](tf)
    assert sorted(got) == sorted(want)
    for key in want:
        assert abs(got[key] - want[key]) <= 3e-7 * abs(want[key]), key
