"""tf.nn"""

from tfcluster.api import _unimplemented
from tfcluster.ops.math_ops import sigmoid, tanh  # noqa: F401 - tf.nn.sigmoid is tf.sigmoid
from tfcluster.ops.nn_ops import *  # noqa: F403

__getattr__ = _unimplemented.module_getattr("nn")
