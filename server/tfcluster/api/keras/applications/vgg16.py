"""tf.keras.applications.vgg16"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.imagenet_utils import decode_predictions, preprocess_input
from tfcluster.lib.keras.applications.vgg import VGG16

__getattr__ = _unimplemented.module_getattr("keras.applications.vgg16")
