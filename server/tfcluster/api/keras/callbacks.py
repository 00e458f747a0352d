"""tf.keras.callbacks"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.callbacks import (
    BaseLogger,
    Callback,
    CSVLogger,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    ModelCheckpoint,
    ProgbarLogger,
    TerminateOnNaN,
)

__getattr__ = _unimplemented.module_getattr("keras.callbacks")
