"""tf.keras.applications.resnet_v2"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import (
    ResNet50V2,
    ResNet101V2,
    ResNet152V2,
    decode_predictions,
)
from tfcluster.lib.keras.applications.exported import preprocess_input_tf as preprocess_input

__getattr__ = _unimplemented.module_getattr("keras.applications.resnet_v2")
