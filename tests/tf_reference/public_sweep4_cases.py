"""Behaviours the TF1 programs of openai/gpt-2, roatienza's Deep-Learning-Experiments,
ematvey's seq2seq tutorials, GraphSAGE and tensorflow-DeepFM showed apart on tfcluster. Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_public_sweep4.py and on
tfcluster by tests/unit/test_public_sweep4_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


def _outcome(fn):
    """What one numpy call on a symbolic tensor gives: the result's kind, or the error."""
    try:
        got = fn()
    except Exception as e:  # the error class is what is recorded
        return {"error": type(e).__name__, "message": str(e)}
    if hasattr(got, "op"):
        return {"tensor": got.dtype.name, "op": got.op.type}
    return {"value": type(got).__name__}


def numpy_functions_of_symbolic_tensors(tf):
    """A symbolic tensor refuses to become a numpy array (Tensor.__array__ raises
    NotImplementedError), so numpy functions of one fail: roatienza's decomposition.py calls
    np.reciprocal on tf.svd's output. numpy scalars and arrays in arithmetic still defer to
    the tensor's operators (__array_priority__)."""
    with tf.Graph().as_default():
        t = tf.constant([1.0, 2.0], name="t")
        calls = {
            "reciprocal": lambda: np.reciprocal(t),
            "exp": lambda: np.exp(t),
            "asarray": lambda: np.asarray(t),
            "array": lambda: np.array(t),
            "float32_scalar_times": lambda: np.float32(2.0) * t,
            "float64_scalar_plus": lambda: np.float64(2.0) + t,
            "array_plus": lambda: np.ones(2, np.float32) + t,
            "array_times": lambda: np.ones(2, np.float32) * t,
            "array_less": lambda: np.ones(2, np.float32) < t,
        }
        return {name: _outcome(fn) for name, fn in calls.items()}


CASES = {
    "numpy_functions_of_symbolic_tensors": numpy_functions_of_symbolic_tensors,
}
