"""tensorflow.python.keras.backend_config: the Keras settings (fuzz factor, float type, image
data format) that tf.keras.backend reads and sets, as programs' own optimizers import them
(`backend_config.epsilon()`)."""

from tfcluster.lib.keras.backend import (
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

__all__ = [
    "epsilon",
    "floatx",
    "image_data_format",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
]
