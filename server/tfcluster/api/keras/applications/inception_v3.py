"""tf.keras.applications.inception_v3"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.imagenet_utils import decode_predictions
from tfcluster.lib.keras.applications.imagenet_utils import preprocess_input_tf as preprocess_input
from tfcluster.lib.keras.applications.inception_v3 import InceptionV3

__getattr__ = _unimplemented.module_getattr("keras.applications.inception_v3")
