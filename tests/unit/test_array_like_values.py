"""Array-likes taken as tensors and `tensorflow.python.data`, against TF 1.15's recorded
answers (tests/tf_reference/record_array_like.py): a pandas-Series-like object, an
`__array_interface__`, a bytearray, a memoryview and an array.array become constants of
numpy's dtype; a Dataset sliced from a dict of columns and a Series of labels; the names
`from tensorflow.python.data import ...` gives."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.array_like_cases import CASES

AREA = "array_like"


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_like_program_gives_tfs_answer(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
