"""tf.estimator.tpu on the CPU path gives what TensorFlow 1.15 gives: the programs of
tests/tf_reference/tpu_estimator_cases.py (TPUEstimator(use_tpu=False) training, evaluating
and predicting; TPUConfig/RunConfig/TPUEstimatorSpec checks) compared with
record_tpu_estimator.py's values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference, tpu_estimator_cases


@pytest.mark.parametrize("name", sorted(tpu_estimator_cases.CASES))
def test_tpu_estimator_cpu_path_matches_tensorflow_1_15(name: str, tmp_path: Any) -> None:
    expected = reference.case("tpu_estimator", name)
    with tf.Graph().as_default():
        actual = tpu_estimator_cases.CASES[name](tf, str(tmp_path))
    assert sorted(actual) == sorted(expected)
    for key, want in expected.items():
        got = actual[key]
        if key in ("eval", "predictions", "kernel"):
            if isinstance(want, dict):
                assert sorted(got) == sorted(want)
                got, want = [got[k] for k in sorted(want)], [want[k] for k in sorted(want)]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=key)
        else:
            assert got == want, key


def test_compat_v1_estimator_tpu_estimator_is_an_estimator() -> None:
    assert tf.compat.v1.estimator.tpu.TPUEstimator is tf.estimator.tpu.TPUEstimator
    assert issubclass(tf.compat.v1.estimator.tpu.TPUEstimator, tf.estimator.Estimator)
    assert issubclass(tf.compat.v1.estimator.tpu.RunConfig, tf.estimator.RunConfig)


def test_use_tpu_true_raises_unimplemented_naming_it(tmp_path: Any) -> None:
    cfg = tf.estimator.tpu.RunConfig(model_dir=str(tmp_path))
    with pytest.raises(tf.errors.UnimplementedError, match="use_tpu=True"):
        tf.estimator.tpu.TPUEstimator(lambda features, params: None, config=cfg)
