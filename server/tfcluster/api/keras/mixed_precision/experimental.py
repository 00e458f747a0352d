"""tf.keras.mixed_precision.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.mixed_precision.loss_scale_optimizer import LossScaleOptimizer
from tfcluster.lib.keras.mixed_precision.policy import Policy, global_policy, set_policy

__getattr__ = _unimplemented.module_getattr("keras.mixed_precision.experimental")
