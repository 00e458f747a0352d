"""tf.cond in a function's graph against TF 1.15's recorded answers
(tests/tf_reference/record_function_cond.py): in a Dataset.map function TF builds cond_v2
(outputs `cond/Identity`, `cond/Identity_1`; branches counting their ops apart), so random
ops after a cond, inside a branch and after nested conds draw TF's numbers; a cond in an
ordinary graph stays TF1's (`cond/Merge`)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.function_cond_cases import CASES

AREA = "function_cond"


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_cond_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
