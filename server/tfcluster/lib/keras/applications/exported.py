"""The public tf.keras.applications functions as TF 1.15 exports them: each is a wrapper taking
(*args, **kwargs) (TF's keras_modules_injection around Keras Applications), so their
signatures are TF's; the models and helpers themselves live in this package's modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.lib.keras.applications import (
    densenet,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    nasnet,
    resnet,
    vgg,
    xception,
)


def _exported(fn: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = name or fn.__name__
    wrapper.__doc__ = fn.__doc__
    wrapper.__module__ = fn.__module__
    return wrapper


VGG16 = _exported(vgg.VGG16)
VGG19 = _exported(vgg.VGG19)
ResNet50 = _exported(resnet.ResNet50)
ResNet101 = _exported(resnet.ResNet101)
ResNet152 = _exported(resnet.ResNet152)
ResNet50V2 = _exported(resnet.ResNet50V2)
ResNet101V2 = _exported(resnet.ResNet101V2)
ResNet152V2 = _exported(resnet.ResNet152V2)
MobileNet = _exported(mobilenet.MobileNet)
MobileNetV2 = _exported(mobilenet_v2.MobileNetV2)
InceptionV3 = _exported(inception_v3.InceptionV3)
InceptionResNetV2 = _exported(inception_resnet_v2.InceptionResNetV2)
Xception = _exported(xception.Xception)
DenseNet121 = _exported(densenet.DenseNet121)
DenseNet169 = _exported(densenet.DenseNet169)
DenseNet201 = _exported(densenet.DenseNet201)
NASNetMobile = _exported(nasnet.NASNetMobile)
NASNetLarge = _exported(nasnet.NASNetLarge)

decode_predictions = _exported(imagenet_utils.decode_predictions)
# preprocess_input per module: imagenet_utils, vgg16 and vgg19 take `mode` (default 'caffe'),
# the ResNets fix 'caffe', DenseNet 'torch', the others 'tf'.
preprocess_input = _exported(imagenet_utils.preprocess_input)
preprocess_input_caffe = _exported(imagenet_utils.preprocess_input_caffe, "preprocess_input")
preprocess_input_tf = _exported(imagenet_utils.preprocess_input_tf, "preprocess_input")
preprocess_input_torch = _exported(densenet.preprocess_input, "preprocess_input")
