"""The order of TF 1.15's CPU sums, bit for bit, against its recorded answers
(tests/tf_reference/record_rlgan_sweep.py): BiasAddGrad's blocks of rows, whole-tensor sums
split by Eigen's FullReducer and halving tree, rows longer than 1024 packets; and the gradient
helper ops' products in Eigen's packet and scalar orders."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.rlgan_sweep_cases import CASES

AREA = "rlgan_sweep"


@pytest.mark.parametrize("case", ["bias_gradient_sums", "whole_tensor_sums", "long_row_sums"])
def test_sums_add_up_in_tfs_order(case: str) -> None:
    expected = reference.case(AREA, case)
    assert CASES[case](tf) == expected


def test_gradient_helper_ops_multiply_in_eigens_packet_and_scalar_orders() -> None:
    expected = reference.case(AREA, "gradient_helper_ops")
    assert CASES["gradient_helper_ops"](tf) == expected
