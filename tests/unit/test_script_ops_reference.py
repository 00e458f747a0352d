"""tf.py_func, tf.numpy_function and tf.py_function against
TensorFlow 1.15: every program of tf_reference/script_ops_cases.py runs on tfcluster and gives
what TensorFlow gave (values, what the function gets, op names, gradients, error classes and
messages)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.codec import decode, encode
from tf_reference.script_ops_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = reference.case("script_ops", name)
    assert "skipped" not in want, want.get("skipped")
    got = decode(encode(CASES[name](tf)))
    same(got, want, name)
