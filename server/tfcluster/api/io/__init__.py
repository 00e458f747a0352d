"""tf.io"""

from tfcluster.api import _unimplemented
from tfcluster.ops.image_ops import (  # noqa: F401 - the image decoders, as tf.io has them
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    extract_jpeg_shape,
    is_jpeg,
)

__getattr__ = _unimplemented.module_getattr("io")
