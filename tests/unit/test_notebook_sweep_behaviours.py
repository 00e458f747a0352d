"""Behaviours of a TF1 book's notebooks against TF 1.15's recorded answers
(tests/tf_reference/record_notebook_sweep.py): float32 sin/cos/tan bit for bit, and the order
of Estimator.evaluate's result."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.notebook_sweep_cases import CASES

AREA = "notebook_sweep"


@pytest.fixture(scope="module")
def trig() -> dict[str, np.ndarray]:
    return CASES["trig_float32_bits"](tf)


@pytest.mark.parametrize(
    "fn", ["sin", "cos", "tan", "sin_single", "cos_single", "tan_single", "loop"]
)
def test_float32_sin_cos_tan_round_as_tfs_cpu_kernels_bit_for_bit(
    trig: dict[str, np.ndarray], fn: str
) -> None:
    expected = reference.case(AREA, "trig_float32_bits")
    np.testing.assert_array_equal(trig["inputs"], expected["inputs"])
    got, want = trig[fn], expected[fn]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)  # NaN where TF has NaN; every bit else


def test_estimator_evaluate_lists_metrics_sorted_then_global_step() -> None:
    expected = reference.case(AREA, "estimator_evaluate_metric_order")
    assert CASES["estimator_evaluate_metric_order"](tf) == expected


def test_tensors_of_another_graph_build_or_fail_with_tfs_messages() -> None:
    expected = reference.case(AREA, "tensors_of_another_graph")
    actual = CASES["tensors_of_another_graph"](tf)
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        assert actual[key] == want, key
