"""tf.train.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.training.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from tfcluster.training.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer
from tfcluster.training.mixed_precision import (
    disable_mixed_precision_graph_rewrite,
    enable_mixed_precision_graph_rewrite,
)
from tfcluster.training.python_state import PythonState

__getattr__ = _unimplemented.module_getattr("train.experimental")
