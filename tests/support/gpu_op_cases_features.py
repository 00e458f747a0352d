"""GPU comparison case (see gpu_op_cases.py) of the feature-column op written over xp:
Bucketize (values on, between and outside the boundaries, float and int inputs)."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tfcluster.ops.feature_ops import bucketize

from support.gpu_op_cases import CASES, Build


def _bucketize() -> Build:
    x = tf.constant(np.array([[-3.0, 0.0, 0.5], [1.0, 2.5, 9.0]], np.float32))
    n = tf.constant(np.array([-1, 0, 1, 2, 3, 7], np.int64))
    bounds = [0.0, 1.0, 2.5]
    return Build([bucketize(x, bounds), bucketize(n, bounds)])


CASES["Bucketize"] = _bucketize
