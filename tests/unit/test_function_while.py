"""tf.while_loop in a function's graph against TF 1.15's recorded answers
(tests/tf_reference/record_function_while.py): in a Dataset.map function TF builds while_v2,
so random ops after the loop and inside its body, with captured tensors and a maximum
number of iterations, draw TF's numbers, and the results are named while/Identity_<k>."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.function_while_cases import CASES

AREA = "function_while"


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_while_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
