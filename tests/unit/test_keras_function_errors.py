"""A Keras backend function's step raises its errors as TF 1.15's session callable does: not
interpolated (the runtime's `{{node X}}` tag kept, no op, no creation stack), while
Session.run's stay interpolated. Programs in tf_reference/keras_function_error_cases.py,
recorded by record_keras_function_errors.py."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.codec import decode, encode
from tf_reference.keras_function_error_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_function_error_is_tf_error(name: str) -> None:
    want = reference.case("keras_function_errors", name)
    assert "skipped" not in want, want.get("skipped")
    same(decode(encode(CASES[name](tf))), want, name)
