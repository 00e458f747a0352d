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
from tfcluster.lib.keras.callbacks_extra import ReduceLROnPlateau, RemoteMonitor, TensorBoard

__getattr__ = _unimplemented.module_getattr("keras.callbacks")
