"""tf.cond's and tf.while_loop's results named as TF 1.15 names them (its Merges and Exits:
`cond/Merge_1:0`, `rnn/while/Exit_3:0`), fetched by those names, with TF's op seeds after
them; against TF 1.15's recorded answers (tests/tf_reference/record_v1_control_flow_names.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.v1_control_flow_name_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_control_flow_results_named_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case("v1_control_flow_names", name), name)
