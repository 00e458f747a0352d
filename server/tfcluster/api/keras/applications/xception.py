"""tf.keras.applications.xception"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.imagenet_utils import decode_predictions
from tfcluster.lib.keras.applications.imagenet_utils import preprocess_input_tf as preprocess_input
from tfcluster.lib.keras.applications.xception import Xception

__getattr__ = _unimplemented.module_getattr("keras.applications.xception")
