"""GPU cases of tf.nn's CTC loss and grayscale morphology (written over xp), added to
gpu_op_cases.CASES."""

from __future__ import annotations

import numpy as np
import tfcluster as tf

from support.gpu_op_cases import Build, _case, _f32, _grad


@_case("CTCLoss", "PreventGradient")
def _ctc_loss() -> Build:
    logits = _f32(6, 3, 5)
    labels = tf.SparseTensor(
        np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], np.int64),
        np.array([1, 1, 3, 0, 2, 0], np.int32),
        np.array([3, 3], np.int64),
    )
    loss = tf.nn.ctc_loss(labels, logits, np.array([6, 4, 6], np.int32))
    return Build([loss, _grad(loss, logits)])


@_case("Dilation2D", "Dilation2DBackpropInput", "Dilation2DBackpropFilter")
def _morphology() -> Build:
    x, f = _f32(2, 6, 5, 3), _f32(3, 2, 3)
    y = tf.nn.dilation2d(x, f, [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    e = tf.nn.erosion2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    return Build([y, e, *tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(e), [x, f])])
