"""tf.keras.applications.resnet_v2"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.imagenet_utils import decode_predictions
from tfcluster.lib.keras.applications.imagenet_utils import preprocess_input_tf as preprocess_input
from tfcluster.lib.keras.applications.resnet import ResNet50V2, ResNet101V2, ResNet152V2

__getattr__ = _unimplemented.module_getattr("keras.applications.resnet_v2")
