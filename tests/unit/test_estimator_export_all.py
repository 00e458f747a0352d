"""An Estimator's SavedModel with a MetaGraph per mode against TF 1.15's recorded answers
(tests/tf_reference/record_estimator_export_all.py): experimental_export_all_saved_models
with TRAIN, EVAL and PREDICT receivers (tags, supervised and serving signatures, the train
op's collection, default attrs stripped), the eval, train and serving signatures loaded
back and run, export_saved_model with experimental_mode=TRAIN, and the errors of an empty
receiver map and of a model never trained."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.estimator_export_all_cases import CASES

AREA = "estimator_export_all"


@pytest.mark.parametrize("name", sorted(CASES))
def test_estimator_export_all_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
