"""tf.keras.callbacks.ModelCheckpoint against TF 1.15's recorded answers
(tests/tf_reference/record_model_checkpoint.py): the files saved with save_freq, period and
save_best_only, a subclassed model's weights only, load_weights_on_restart, and TF's
warnings and errors."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.model_checkpoint_cases import CASES

AREA = "model_checkpoint"


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_checkpoint_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
