"""Behaviours of public TF1 tutorials against TF 1.15's recorded answers
(tests/tf_reference/record_notebook_sweep2.py): Eigen's scalar path through glibc's expf, logf and
log1pf bit for bit (softmax, cross entropies, and a training whose result is their rounding),
bool() and iteration of graph tensors and variables, compute_gradient_error's float64,
the structure tf.while_loop returns."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.notebook_sweep2_cases import CASES

AREA = "notebook_sweep2"


@pytest.fixture(scope="module")
def scalar_path() -> dict[str, np.ndarray]:
    return CASES["eigen_scalar_path_glibc"](tf)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "name",
    [
        "exp_7", "exp_15", "log_7", "log_15", "log1p_7", "log1p_15", "softmax_vector",
        "softmax_rows", "log_softmax_rows", "xent", "xent_grad", "sparse_xent",
        "sparse_xent_grad",
    ],
)  # fmt: skip
def test_eigen_scalar_path_rounds_as_glibcs_expf_logf_log1pf(
    scalar_path: dict[str, np.ndarray], name: str
) -> None:
    want = reference.case(AREA, "eigen_scalar_path_glibc")[name]
    got = scalar_path[name]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_training_on_softmax_rounding_matches_tf_bit_for_bit() -> None:
    want = reference.case(AREA, "entropy_adam_training")
    got = CASES["entropy_adam_training"](tf)
    for key in ("softmax", "w"):
        np.testing.assert_array_equal(got[key].view(np.int32), want[key].view(np.int32))


def test_bool_and_iteration_of_graph_tensors_as_tf() -> None:
    want = reference.case(AREA, "python_ops_on_graph_tensors")
    got = CASES["python_ops_on_graph_tensors"](tf)
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        assert got[key] == value, key


def test_operator_not_allowed_in_graph_error_is_a_type_error() -> None:
    with tf.Graph().as_default(), pytest.raises(TypeError):
        bool(tf.constant(True))


def test_compute_gradient_error_is_float64_as_tf() -> None:
    want = reference.case(AREA, "compute_gradient_error_type")
    got = CASES["compute_gradient_error_type"](tf)
    assert got["type"] == want["type"] == "float64"
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6)


def test_while_loop_returns_the_structure_of_its_body_as_tf() -> None:
    want = reference.case(AREA, "while_loop_result_structure")
    assert CASES["while_loop_result_structure"](tf) == want


def test_keras_version_is_the_one_tf_bundles() -> None:
    assert CASES["keras_version"](tf) == reference.case(AREA, "keras_version")
