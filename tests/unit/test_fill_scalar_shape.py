"""tf.zeros(5) / tf.ones(3): with a one-number shape TF 1.15 builds Fill(shape_as_tensor, Const)
rather than one Const (its constant(value, shape=5) attempt fails), so the graph holds three
ops and every later op-count seed moves by two. Cases in
tests/tf_reference/fill_scalar_shape_cases.py, recorded by record_fill_scalar_shape.py."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.fill_scalar_shape_cases import CASES


@pytest.mark.parametrize("case", sorted(CASES))
def test_zeros_and_ones_of_a_one_number_shape_build_tf_ops(case: str) -> None:
    reference.assert_case_equal("fill_scalar_shape", case, CASES[case](tf))
