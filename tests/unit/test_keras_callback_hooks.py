"""Keras callbacks' hooks against TF 1.15's recorded calls
(tests/tf_reference/record_keras_callback_hooks.py): fit calls the test hooks of its callbacks
for validation, evaluate and predict call the test and predict hooks of theirs (logs of batch
and size, then the batch's metric values or outputs), on arrays, generators and datasets; the
base Callback forwards on_train_batch_* to on_batch_* with `logs=` as a keyword, so a
LambdaCallback batch hook whose second parameter is not called `logs` fails as in TF."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_callback_hook_cases import CASES

AREA = "keras_callback_hooks"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_callback_hooks_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
