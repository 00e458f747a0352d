"""Summary protos holding tf.make_tensor_proto's tensors, built, serialized and read back as in
TF 1.15 (recorded by tests/tf_reference/record_summary_protos.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.summary_proto_cases import CASES

AREA = "summary_protos"


def test_summary_values_hold_make_tensor_protos_tensors() -> None:
    name = "summary_values_holding_tensors"
    reference.assert_case_equal(AREA, name, CASES[name](tf))
