"""Canned estimators and feature columns give what TensorFlow 1.15 gives: the programs of
tests/tf_reference/estimator_cases.py run on tfcluster and are compared with the values
record_estimator.py recorded from TF 1.15 (same data, same warm-start values)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import estimator_cases, reference


def _compare(actual: Any, expected: Any, path: str, rtol: float, atol: float) -> None:
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), f"{path}: keys differ"
        for k in expected:
            _compare(actual[k], expected[k], f"{path}/{k}", rtol, atol)
        return
    if isinstance(expected, list) and expected and isinstance(expected[0], str):
        assert list(actual) == expected, f"{path} differs"
        return
    a, e = np.asarray(actual), np.asarray(expected)
    if e.dtype.kind in "fc" or a.dtype.kind in "fc":
        np.testing.assert_allclose(
            a.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol, err_msg=path
        )
    else:
        np.testing.assert_array_equal(a, e, err_msg=path)


@pytest.mark.parametrize("name", sorted(estimator_cases.CASES))
def test_matches_tensorflow_1_15(name: str, tmp_path: Any) -> None:
    expected = reference.case("estimator", name)
    with tf.Graph().as_default():
        actual = estimator_cases.CASES[name](tf, str(tmp_path))
    # Training runs a few optimizer steps: allow float32 accumulation differences.
    _compare(actual, expected, name, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", estimator_cases.CHECKPOINT_CASES)
def test_continues_from_a_tensorflow_1_15_checkpoint(name: str, tmp_path: Any) -> None:
    """A canned model restores TF 1.15's checkpoint (optimizer slots of partitioned weights
    under TF's names, e.g. 'linear/linear_model/a/weights/part_0/Ftrl') and trains on to
    TF's values; its own checkpoint holds the same names TF's does."""
    expected = reference.case("estimator", f"checkpoint_{name}")
    with tf.Graph().as_default():
        actual = estimator_cases.checkpoint_case(tf, str(tmp_path), name, False)
    assert actual["variables"] == expected["variables"]
    _compare(actual["values"], expected["values"], name, rtol=2e-4, atol=2e-5)
