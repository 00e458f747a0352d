"""tensorflow.python.keras.optimizer_v2.optimizer_v2: the base class of Keras optimizers,
OptimizerV2 (tf.keras.optimizers.Optimizer), which programs subclass for their own."""

from tfcluster.lib.keras.optimizer_v2 import Optimizer

OptimizerV2 = Optimizer

__all__ = ["OptimizerV2"]
