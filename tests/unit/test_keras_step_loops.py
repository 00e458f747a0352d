"""Keras's step-wise loops against TF 1.15's recorded answers
(tests/tf_reference/record_keras_step_loops.py): fit / evaluate / predict given numpy arrays
and a number of steps (TF warns that arrays want batch_size, then feeds the whole arrays at
every step, in order, averaging the loss over the steps), and the generator and dataset loops'
metrics, which run on across batches (AUC and precision are not means of batch values)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.keras_step_loop_cases import CASES

AREA = "keras_step_loops"


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_step_wise_loops_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)


def test_validation_arrays_without_validation_steps_fail_after_the_epoch_as_tf() -> None:
    x, y = CASES["fit_by_steps"].__globals__["_data"]()
    model = CASES["fit_by_steps"].__globals__["_model"](tf)
    with pytest.raises(TypeError, match="validation_steps"):
        model.fit(x, y, steps_per_epoch=2, validation_data=(x[:6], y[:6]), verbose=0)
    # The epoch trained before validation failed, as in TF.
    assert model.get_weights()[3].tolist() != [0.0]
