"""Behaviour of public TF1 reinforcement-learning programs that differed on tfcluster, against
TF 1.15's recorded answers (tests/tf_reference/record_rl_programs.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.rl_program_cases import CASES

AREA = "rl_programs"


@pytest.mark.parametrize("optimizer", ["adagrad", "rmsprop", "rmsprop_centered"])
def test_optimizer_slot_initializers_are_tfs_ops_so_later_seeded_draws_match(
    optimizer: str,
) -> None:
    expected = reference.case(AREA, "optimizer_slots_then_seeded_draws")[optimizer]
    actual = CASES["optimizer_slots_then_seeded_draws"](tf)[optimizer]
    assert actual["slot_ops"] == expected["slot_ops"]
    reference.assert_close(actual["after"], expected["after"], rtol=1e-6)
    reference.assert_close(actual["losses"], expected["losses"], rtol=1e-5)


ELEMENTWISE = [
    "exp",
    "log",
    "softplus",
    "elu",
    "selu",
    "log_sigmoid",
    "softmax_rows",
    "short_exp",
    # small tensors: Eigen's rational tanh and logistic (kernels/_eigen_activations.py)
    "short_tanh",
    "scalar_sigmoid",
]
# Larger tensors keep numpy's vectorized tanh and logistic (kernels/_eigen_activations.py
# says why): a few ulps from TF's.
NUMPY_ROUNDED = ["tanh", "sigmoid"]


@pytest.fixture(scope="module")
def elementwise() -> dict[str, np.ndarray]:
    return CASES["eigen_elementwise_float32"](tf)


@pytest.mark.parametrize("fn", ELEMENTWISE)
def test_float32_elementwise_functions_round_as_tfs_cpu_kernels_bit_for_bit(
    elementwise: dict[str, np.ndarray], fn: str
) -> None:
    expected = reference.case(AREA, "eigen_elementwise_float32")
    np.testing.assert_array_equal(elementwise["inputs"], expected["inputs"])
    got, want = elementwise[fn], expected[fn]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)  # NaN where TF has NaN; every bit else


EXP_EDGES = [
    "exp",
    "exp_normal_only",
    "softplus",
    "elu",
    "selu",
    "softmax_rows",
    "softmax_wide",
    "sparse_backprop",
    "dense_loss",
    "dense_backprop",
]


@pytest.fixture(scope="module")
def exp_edges() -> dict[str, np.ndarray]:
    return CASES["eigen_exp_edges_float32"](tf)


@pytest.mark.parametrize("fn", EXP_EDGES)
def test_exp_based_functions_flush_subnormal_inputs_and_results_as_tfs_cpu_kernels(
    exp_edges: dict[str, np.ndarray], fn: str
) -> None:
    expected = reference.case(AREA, "eigen_exp_edges_float32")
    np.testing.assert_array_equal(exp_edges["inputs"], expected["inputs"])
    got, want = exp_edges[fn], expected[fn]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))  # signed zeros too


def test_sparse_softmax_loss_by_libm_log_is_within_an_ulp_of_tfs_where_results_flush(
    exp_edges: dict[str, np.ndarray],
) -> None:
    # TF's sparse loss takes log(sum) through its libm's logf: one ulp apart at times.
    want = reference.case(AREA, "eigen_exp_edges_float32")["sparse_loss"]
    np.testing.assert_allclose(exp_edges["sparse_loss"], want, rtol=2.5e-7, atol=0)


@pytest.mark.parametrize("fn", NUMPY_ROUNDED)
def test_float32_tanh_and_sigmoid_are_within_a_few_ulps_of_tfs(
    elementwise: dict[str, np.ndarray], fn: str
) -> None:
    expected = reference.case(AREA, "eigen_elementwise_float32")
    got, want = elementwise[fn], expected[fn]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=5e-7, atol=3e-7, equal_nan=True)


@pytest.mark.parametrize("shape", ["6x5", "4x11", "9x3", "2x16"])
def test_softmax_cross_entropy_losses_and_gradients_are_tfs_bits_through_sgd_steps(
    shape: str,
) -> None:
    expected = reference.case(AREA, "softmax_policy_losses_and_gradients")[shape]
    actual = CASES["softmax_policy_losses_and_gradients"](tf)[shape]
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        for key, value in want.items():
            if key == "sparse":
                # TF's sparse loss takes log(sum) through its libm's logf: one ulp apart at times.
                np.testing.assert_allclose(got[key], value, rtol=2.5e-7, atol=0)
            else:
                np.testing.assert_array_equal(got[key], value, err_msg=key)
