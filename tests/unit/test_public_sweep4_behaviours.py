"""Behaviours of openai/gpt-2, roatienza's Deep-Learning-Experiments, ematvey's seq2seq
tutorials, GraphSAGE and tensorflow-DeepFM against TF 1.15's recorded answers
(tests/tf_reference/record_public_sweep4.py)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tf_reference import reference
from tf_reference.public_sweep4_cases import CASES

AREA = "public_sweep4"


def test_numpy_functions_of_a_symbolic_tensor_raise_not_implemented_as_tf() -> None:
    expected = reference.case(AREA, "numpy_functions_of_symbolic_tensors")
    actual = CASES["numpy_functions_of_symbolic_tensors"](tf)
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        assert actual[name] == want, name


def test_gradients_of_lookups_inside_a_cond_are_tfs_values() -> None:
    expected = reference.case(AREA, "gradients_of_lookups_inside_a_cond")
    actual = CASES["gradients_of_lookups_inside_a_cond"](tf)
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        np.testing.assert_allclose(actual[name], want, rtol=1e-6, atol=1e-7, err_msg=name)
