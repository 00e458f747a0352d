"""Behaviours of public TF1 programs (a super-resolution GAN, a DQN agent, an RL library's
utilities) against TF 1.15's recorded answers (tests/tf_reference/record_public_sweep5.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.public_sweep5_cases import CASES

AREA = "public_sweep5"


def test_a_summary_name_with_illegal_characters_is_cleaned_and_logged_at_info() -> None:
    name = "summary_names_with_illegal_characters"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_unary_and_reduction_gradients_make_tfs_ops_with_their_control_and_colocation() -> None:
    name = "ops_of_unary_and_reduction_gradients"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for forward, want in expected.items():
        assert actual[forward] == want, forward


def test_batch_normalization_leaves_python_numbers_as_given_as_tf() -> None:
    name = "batch_normalization_of_python_numbers"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for form, want in expected.items():
        got = actual[form]
        assert got["ops"] == want["ops"], form
        assert got["name"] == want["name"], form
        np.testing.assert_allclose(got["y"], want["y"], rtol=1e-6, err_msg=form)


def test_resource_variable_updates_colocate_and_wait_as_tf() -> None:
    name = "resource_variable_updates_graphs"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    assert actual["waits_on_handle"] == expected["waits_on_handle"]
    for optimizer, want in expected.items():
        if optimizer == "waits_on_handle":
            continue
        got = actual[optimizer]
        assert got["ops"] == want["ops"], optimizer
        np.testing.assert_allclose(got["values"][0], want["values"][0], rtol=1e-6)
        np.testing.assert_allclose(got["values"][1], want["values"][1], rtol=1e-6)


def test_scatters_of_a_resource_variable_build_and_return_as_tf() -> None:
    name = "resource_variable_scatters"
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert actual["ops"] == expected["ops"]
    assert actual["results"] == expected["results"]
    np.testing.assert_allclose(actual["values"], expected["values"], rtol=1e-6)
