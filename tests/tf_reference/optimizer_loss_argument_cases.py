"""What Optimizer.compute_gradients does with losses (and grad_loss) that are not float
tensors, run by TF 1.15 (record_optimizer_loss_arguments.py) and tfcluster
(tests/unit/test_optimizer_loss_arguments.py): TF 1.15 converts neither, so a Python number,
a list or a placeholder `...` fails on its dtype (AttributeError), an integer tensor with a
ValueError listing the float types, and a variable is taken as it is. Each case returns the
gradients' kinds and variables, or the error's class and message. Python 3.7 code."""

from __future__ import annotations

from typing import Any

import numpy as np


def run_all(tf: Any) -> dict[str, str]:
    tf.reset_default_graph()
    v = tf.Variable(1.0, name="v")
    opt = tf.train.GradientDescentOptimizer(0.1)
    cases = {
        "ellipsis": (..., None),
        "python_float": (2.0, None),
        "numpy_float32": (np.float32(2.0), None),
        "list_of_a_tensor": ([v * 2.0], None),
        "variable": (v, None),
        "int32_tensor": (tf.constant(1, name="int_loss"), None),
        "float_grad_loss": (v * 2.0, 1.0),
        "tensor_grad_loss": (v * 2.0, tf.constant(2.0)),
    }
    out = {}
    for name, (loss, grad_loss) in sorted(cases.items()):
        try:
            grads = opt.compute_gradients(loss, grad_loss=grad_loss)
            out[name] = "ok " + repr([(type(g).__name__, w.name) for g, w in grads])
        except Exception as e:
            message = str(e).replace("numpy.dtype[float32]", "numpy.dtype")
            message = message.replace("numpy.dtypes.Float32DType", "numpy.dtype")
            out[name] = f"{type(e).__name__}: {message}"
    return out
