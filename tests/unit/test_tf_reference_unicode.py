"""tf.strings Unicode ops, ngrams and tf.io byte codecs against TensorFlow 1.15's recorded values:
outputs, dtypes, shapes, tensor names, gradients and error classes, case by case
(tests/tf_reference/cases_unicode.py)."""

from __future__ import annotations

import pytest
from tf_reference import cases_unicode
from tf_reference.compare import assert_case_matches

CASES = sorted(cases_unicode.BOOK.cases)


@pytest.mark.parametrize("name", CASES)
def test_unicode_case_matches_tensorflow(name: str) -> None:
    assert_case_matches("unicode", cases_unicode.BOOK, name)
