"""tf.quantization against TensorFlow 1.15's recorded answers
(tests/tf_reference/quantization_cases.py): fake quantization and its gradients bit for bit,
QuantizeV2 / Dequantize in every mode and dtype, QuantizedConcat, QuantizeAndDequantizeV2,
tensor names, dtypes and error classes."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import quantization_cases as cases
from tf_reference import reference

AREA = "quantization"


def _tolerance(case: str, key: str) -> float:
    # Sums over elements (the range's gradients) add in another order than Eigen's.
    return (
        1e-6
        if key.startswith(("out:grads.1", "out:grads.2", "out:direct.1", "out:direct.2"))
        else 0.0
    )


@pytest.mark.parametrize("case", sorted(cases.PROGRAMS))
def test_quantization_matches_tensorflow(case: str) -> None:
    want = reference.case(AREA, case)
    got = cases.run(tf, case)
    if "error" in want:
        assert "error" in got, f"{case}: TF raised {want['error']}, tfcluster did not"
        assert type(got["error"]).__name__ == reference.error_class(want["error"]), got["error"]
        assert got["stage"] == want["stage"], got["error"]
        return
    if "error" in got:
        raise AssertionError(f"{case}: tfcluster raised while {got['stage']}ing") from got["error"]
    for key, value in want.items():
        if key.startswith(("name:", "dtype:")):
            assert got[key] == value, f"{case}: {key} is {got[key]!r}, TF's {value!r}"
            continue
        got_value, value = np.asarray(got[key]), np.asarray(value)
        assert got_value.dtype == value.dtype, (case, key, got_value.dtype, value.dtype)
        assert got_value.shape == value.shape, (case, key)
        rtol = _tolerance(case, key)
        if rtol:
            np.testing.assert_allclose(got_value, value, rtol=rtol, atol=1e-6, err_msg=key)
        else:
            np.testing.assert_array_equal(got_value, value, err_msg=f"{case} {key}")


def test_quantized_dtypes_are_tf_dtypes() -> None:
    assert tf.quint8.is_quantized and not tf.quint8.is_integer
    # TF 1.15 gives a quantized dtype no limits (DType.min raises TypeError).
    with pytest.raises(TypeError):
        _ = tf.qint8.min
    assert tf.as_dtype(np.dtype([("qint32", np.int32)])) is tf.qint32
    assert tf.dtypes.quint16.as_numpy_dtype == np.dtype([("quint16", np.uint16)])


def test_quantized_dtypes_set_holds_them_and_their_refs() -> None:
    assert len(tf.QUANTIZED_DTYPES) == 10
    assert tf.qint32 in tf.dtypes.QUANTIZED_DTYPES
    assert tf.float32 not in tf.QUANTIZED_DTYPES


def test_quantize_results_come_back_by_name() -> None:
    with tf.Graph().as_default():
        q = tf.quantization.quantize(tf.constant([-1.0, 0.0, 0.3, 2.0]), -1.0, 2.0, tf.quint8)
        with tf.Session() as sess:
            got = sess.run(q)
    assert type(got).__name__ == "QuantizeV2"
    assert got.output.view(np.uint8).tolist() == [0, 85, 110, 255]  # TF 1.15's values
    assert (got.output_min, got.output_max) == (-1.0, 2.0)
