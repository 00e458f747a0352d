"""tf.estimator's public heads, Baseline*/*Estimator, add_metrics, the parse-spec helpers
and the exporters give what TensorFlow 1.15 gives: the programs of
tests/tf_reference/estimator_heads_cases.py run on tfcluster and are compared with what
record_estimator_heads.py recorded from TF 1.15 (same data, same starting values)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import estimator_heads_cases, reference


def _compare(actual: Any, expected: Any, path: str) -> None:
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), f"{path}: keys differ"
        for k in expected:
            _compare(actual[k], expected[k], f"{path}/{k}")
        return
    if isinstance(expected, list) and (not expected or not isinstance(expected[0], (int, float))):
        assert len(actual) == len(expected), f"{path}: lengths differ"
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{path}[{i}]")
        return
    if isinstance(expected, str) or expected is None:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"
        return
    a, e = np.asarray(actual), np.asarray(expected)
    if e.dtype.kind in "fc" or a.dtype.kind in "fc":
        # A few optimizer steps in float32: allow accumulation-order differences.
        np.testing.assert_allclose(
            a.astype(np.float64), e.astype(np.float64), rtol=2e-4, atol=2e-5, err_msg=path
        )
    else:
        np.testing.assert_array_equal(a, e, err_msg=path)


@pytest.mark.parametrize("name", sorted(estimator_heads_cases.CASES))
def test_matches_tensorflow_1_15(name: str, tmp_path: Any) -> None:
    expected = reference.case("estimator_heads", name)
    with tf.Graph().as_default():
        actual = estimator_heads_cases.CASES[name](tf, str(tmp_path))
    _compare(actual, expected, name)
