"""tf.keras.preprocessing.image"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.preprocessing.image import ImageDataGenerator
from tfcluster.lib.keras.preprocessing.image_iterators import (
    DirectoryIterator,
    Iterator,
    NumpyArrayIterator,
)
from tfcluster.lib.keras.preprocessing.image_transforms import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
)
from tfcluster.lib.keras.preprocessing.image_utils import (
    array_to_img,
    img_to_array,
    load_img,
    save_img,
)

__getattr__ = _unimplemented.module_getattr("keras.preprocessing.image")
