"""tf.keras.optimizers.schedules"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.optimizer_schedules import (
    ExponentialDecay,
    InverseTimeDecay,
    LearningRateSchedule,
    PiecewiseConstantDecay,
    PolynomialDecay,
    deserialize,
    serialize,
)

__getattr__ = _unimplemented.module_getattr("keras.optimizers.schedules")
