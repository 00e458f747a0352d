"""Behaviour of public TF1 tutorials (Hvass-Labs, hwalsuklee, handson-ml, CS20) that differed on
tfcluster, against TF 1.15's recorded answers (tests/tf_reference/record_tutorial_programs.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.tutorial_program_cases import CASES

AREA = "tutorial_programs"


def test_fetched_float_scalars_compare_with_python_numbers_as_under_numpy_1() -> None:
    expected = reference.case(AREA, "fetched_scalar_comparisons")
    actual = CASES["fetched_scalar_comparisons"](tf)
    assert actual == expected


def test_an_unfed_placeholder_names_its_dtype_and_shape_as_tf_does() -> None:
    expected = reference.case(AREA, "unfed_placeholder_messages")
    actual = CASES["unfed_placeholder_messages"](tf)
    assert actual == expected


def test_adding_string_tensors_concatenates_them_as_tf_does() -> None:
    expected = reference.case(AREA, "string_concatenation")
    actual = CASES["string_concatenation"](tf)
    assert actual == expected


def test_numpy_1_names_tf1_programs_use_mean_what_they_meant_beside_tf_1_15() -> None:
    expected = reference.case(AREA, "numpy1_names")
    actual = CASES["numpy1_names"](tf)
    assert actual == expected


def test_tostring_and_fromstring_carry_image_bytes_through_an_example_as_beside_tf_1_15() -> None:
    expected = reference.case(AREA, "numpy1_byte_strings")
    actual = CASES["numpy1_byte_strings"](tf)
    assert actual == expected


def test_python_3_7_names_tf1_programs_use_mean_what_they_meant_beside_tf_1_15() -> None:
    expected = reference.case(AREA, "python37_names")
    actual = CASES["python37_names"](tf)
    assert actual == expected


def test_a_failed_steps_error_names_the_node_and_carries_it_as_tf_1_15s_client_does() -> None:
    expected = reference.case(AREA, "runtime_error_messages")
    actual = CASES["runtime_error_messages"](tf)
    assert actual == expected
