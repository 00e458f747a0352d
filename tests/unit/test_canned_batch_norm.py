"""The canned DNN estimators with batch_norm=True against TF 1.15's recorded answers
(tests/tf_reference/record_canned_batch_norm.py): the batch normalization variables' names
and values in the checkpoint (moving statistics updated by the head's train op), the
evaluation metrics and predictions, for DNNClassifier, DNNRegressor with dropout,
DNNLinearCombinedClassifier and dnn_logit_fn_builder in a model_fn of one's own."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.canned_batch_norm_cases import CASES
from tf_reference.case_tools import same

AREA = "canned_batch_norm"


@pytest.mark.parametrize("name", sorted(CASES))
def test_canned_batch_norm_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
