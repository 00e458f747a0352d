"""tf.keras fit / evaluate / predict take a DataFrame (through its .values) and a Series (as
an array) as TF 1.15 does, giving TF's losses and predictions (keras_table_input_cases.py,
recorded by tests/tf_reference/record_keras_table_input.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_table_input_cases import run


def test_fit_evaluate_predict_on_a_dataframe_and_a_series() -> None:
    got = run(tf)
    want = reference.case("keras_table_input", "regression")
    reference.assert_close(got["predict_before"], want["predict_before"])
    assert sorted(got["history"]) == sorted(want["history"])
    for key, values in want["history"].items():
        reference.assert_close(got["history"][key], values)
    reference.assert_close(got["evaluate"], want["evaluate"])
    reference.assert_close(got["predict_after"], want["predict_after"])
