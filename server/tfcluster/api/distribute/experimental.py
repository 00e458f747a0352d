"""tf.distribute.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.distribute.strategies import (
    CentralStorageStrategy,
    MultiWorkerMirroredStrategy,
    ParameterServerStrategy,
)
from tfcluster.lib.distribute.strategy import CollectiveCommunication

__getattr__ = _unimplemented.module_getattr("distribute.experimental")
