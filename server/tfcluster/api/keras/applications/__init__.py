"""tf.keras.applications (TF 1.15)"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from tfcluster.lib.keras.applications.inception_resnet_v2 import InceptionResNetV2
from tfcluster.lib.keras.applications.inception_v3 import InceptionV3
from tfcluster.lib.keras.applications.mobilenet import MobileNet
from tfcluster.lib.keras.applications.mobilenet_v2 import MobileNetV2
from tfcluster.lib.keras.applications.nasnet import NASNetLarge, NASNetMobile
from tfcluster.lib.keras.applications.resnet import (
    ResNet50,
    ResNet50V2,
    ResNet101,
    ResNet101V2,
    ResNet152,
    ResNet152V2,
)
from tfcluster.lib.keras.applications.vgg import VGG16, VGG19
from tfcluster.lib.keras.applications.xception import Xception

__getattr__ = _unimplemented.module_getattr("keras.applications")
