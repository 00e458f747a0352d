"""tf.keras.applications (TF 1.15)"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.exported import (
    VGG16,
    VGG19,
    DenseNet121,
    DenseNet169,
    DenseNet201,
    InceptionResNetV2,
    InceptionV3,
    MobileNet,
    MobileNetV2,
    NASNetLarge,
    NASNetMobile,
    ResNet50,
    ResNet50V2,
    ResNet101,
    ResNet101V2,
    ResNet152,
    ResNet152V2,
    Xception,
)

__getattr__ = _unimplemented.module_getattr("keras.applications")
