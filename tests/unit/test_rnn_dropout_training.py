"""Dropout inside dynamic_rnn draws TF 1.15's masks while the training op runs in the step.

The forward loop's RandomUniform keeps one Philox stream across iterations and session
runs, and the gradient loop reads the saved masks instead of drawing again: the costs and
trained variables of a few Adam steps match TF's. Values recorded under TF 1.15
(tests/tf_reference/record_rnn_dropout_training.py).
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.rnn_dropout_training_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_training_steps_with_rnn_dropout_match_tf(name: str) -> None:
    expected = reference.case("rnn_dropout_training", name)
    actual = CASES[name](tf)
    reference.assert_close(actual["costs"], expected["costs"])
    assert len(actual["variables"]) == len(expected["variables"])
    for got, want in zip(actual["variables"], expected["variables"], strict=True):
        reference.assert_close(got, want)
