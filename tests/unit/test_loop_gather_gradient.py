"""A v1 while loop's body gathering rows of a tensor from outside it gives that tensor's
gradient as TF 1.15's IndexedSlices (index 0 with a row of zeros, then each gradient
iteration's rows), so optimizers apply it sparsely (tests/tf_reference/
loop_gather_gradient_cases.py, recorded by record_loop_gather_gradient.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.loop_gather_gradient_cases import CASES

AREA = "loop_gather_gradient"


def _check_slices(name: str) -> None:
    expected = reference.case(AREA, name)
    actual = CASES[name](tf)
    assert actual["type"] == expected["type"] == "IndexedSlices"
    assert actual["indices"] == expected["indices"]
    assert actual["dense_shape"] == expected["dense_shape"]
    assert actual["static_values_shape"] == expected["static_values_shape"]
    np.testing.assert_allclose(actual["values"], expected["values"], rtol=1e-6)
    # The ops the gradient made count as TF1's: a random op made after it draws the same.
    assert actual["random_after"] == pytest.approx(expected["random_after"], rel=1e-7)


def test_a_loop_looking_up_a_variable_gives_its_gradient_as_tf1_slices() -> None:
    _check_slices("gathered_rows_as_slices")


def test_a_loop_looking_up_a_resource_variable_gives_its_gradient_as_tf1_slices() -> None:
    _check_slices("gathered_resource_rows_as_slices")


def test_rows_of_unknown_width_start_from_zeros_shaped_by_the_gathered_tensor() -> None:
    _check_slices("gathered_rows_of_unknown_width")


def test_momentum_leaves_rows_no_lookup_reached_where_they_were() -> None:
    name = "momentum_moves_only_gathered_rows"
    expected = reference.case(AREA, name)["embedding_after_each_step"]
    actual = CASES[name](tf)["embedding_after_each_step"]
    np.testing.assert_allclose(actual, expected, rtol=1e-6)
