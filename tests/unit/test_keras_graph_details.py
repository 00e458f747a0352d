"""tf.keras graph details against TF 1.15's recorded answers
(tests/tf_reference/record_keras_graph_details.py): a Lambda's or a user's layer gets
training=None, K.function's update group after its first output and its outputs' structure,
TimeDistributed's mask through the inner layer and a masked Bidirectional's zero outputs,
with the op counts that set later layers' initial weights."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_graph_detail_cases import CASES

AREA = "keras_graph_details"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_graph_details_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
