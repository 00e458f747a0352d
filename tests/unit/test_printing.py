"""What TF1 programs print against TF 1.15's recorded output (tests/tf_reference/data/
printing.json): tf.print of tensors, strings, a SparseTensor (alone and in a list), nested
dicts with sep/end and summarize, and the names a variable's initialized_value takes
(`cond/Merge`, the next cond `cond_1`, the next IsVariableInitialized `_1`)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.printing_cases import CASES

AREA = "printing"


@pytest.mark.parametrize("name", sorted(CASES))
def test_printed_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
