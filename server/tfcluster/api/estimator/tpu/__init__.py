"""tf.estimator.tpu"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.estimator.tpu import experimental
from tfcluster.lib.estimator.tpu_config import InputPipelineConfig, RunConfig, TPUConfig
from tfcluster.lib.estimator.tpu_estimator import TPUEstimator, TPUEstimatorSpec

__getattr__ = _unimplemented.module_getattr("estimator.tpu")
