"""The FFT ops (tf.signal, tf.spectral, top-level tf.fft ...) against TensorFlow 1.15's
recorded values: outputs, dtypes, shapes, tensor names, gradients and error classes, case by
case (tests/tf_reference/cases_spectral.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_spectral
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_spectral.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_spectral_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("spectral", cases_spectral.BOOK, name)
