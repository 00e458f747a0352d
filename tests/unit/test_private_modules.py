"""Modules of TensorFlow's private tree imported by path (tensorflow.python.ops.nn) hold
tf.nn's own functions, against TF 1.15's recorded answers
(tests/tf_reference/record_private_modules.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.private_module_cases import CASES

AREA = "private_modules"


def test_the_nn_module_holds_tf_nns_functions() -> None:
    name = "nn_module_functions_are_tf_nns"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_the_nn_modules_functions_compute_as_tf_nns() -> None:
    expected = reference.case(AREA, "nn_module_functions_run")
    actual = CASES["nn_module_functions_run"](tf)
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        np.testing.assert_allclose(actual[name], want, rtol=1e-6, err_msg=name)
