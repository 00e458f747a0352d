"""tf.keras.applications cases shared by record_keras_applications.py (TF 1.15) and
tests/unit/test_keras_applications.py (tfcluster): which model each case builds with what
arguments, how a built model is described, and the seeded weights the prediction cases set.

Python 3.7 code (TF 1.15 runs it); it imports nothing but numpy.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

import numpy as np

# case -> (module under tf.keras.applications, function, keyword arguments). weights=None
# everywhere (no network); small inputs where the model allows them.
STRUCTURES = {
    "vgg16_notop_32": ("vgg16", "VGG16", dict(include_top=False, input_shape=(32, 32, 3))),
    "vgg16_top_32_classes10": (
        "vgg16",
        "VGG16",
        dict(include_top=True, input_shape=(32, 32, 3), classes=10),
    ),
    "vgg16_pool_avg": ("vgg16", "VGG16", dict(include_top=False, pooling="avg")),
    "vgg16_pool_max_48": (
        "vgg16",
        "VGG16",
        dict(include_top=False, pooling="max", input_shape=(48, 48, 3)),
    ),
    "vgg19_notop_32": ("vgg19", "VGG19", dict(include_top=False, input_shape=(32, 32, 3))),
    "resnet50_notop_32": ("resnet", "ResNet50", dict(include_top=False, input_shape=(32, 32, 3))),
    "resnet50_top_32_classes10": (
        "resnet50",
        "ResNet50",
        dict(include_top=True, input_shape=(32, 32, 3), classes=10),
    ),
    "resnet50_pool_max": ("resnet", "ResNet50", dict(include_top=False, pooling="max")),
    "resnet101_notop_32": (
        "resnet",
        "ResNet101",
        dict(include_top=False, input_shape=(32, 32, 3)),
    ),
    "resnet152_notop_32": (
        "resnet",
        "ResNet152",
        dict(include_top=False, input_shape=(32, 32, 3)),
    ),
    "resnet50v2_top_32_classes10": (
        "resnet_v2",
        "ResNet50V2",
        dict(include_top=True, input_shape=(32, 32, 3), classes=10),
    ),
    "resnet101v2_notop_32": (
        "resnet_v2",
        "ResNet101V2",
        dict(include_top=False, input_shape=(32, 32, 3)),
    ),
    "resnet152v2_notop_avg_32": (
        "resnet_v2",
        "ResNet152V2",
        dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"),
    ),
    "mobilenet_default": ("mobilenet", "MobileNet", dict()),
    "mobilenet_025_32_classes10": (
        "mobilenet",
        "MobileNet",
        dict(alpha=0.25, input_shape=(32, 32, 3), classes=10),
    ),
    "mobilenet_05_dm2_notop_avg": (
        "mobilenet",
        "MobileNet",
        dict(alpha=0.5, depth_multiplier=2, include_top=False, pooling="avg"),
    ),
    "mobilenet_075_128_dropout": (
        "mobilenet",
        "MobileNet",
        dict(alpha=0.75, input_shape=(128, 128, 3), dropout=0.5, classes=7),
    ),
    "mobilenetv2_default": ("mobilenet_v2", "MobileNetV2", dict()),
    "mobilenetv2_035_32_classes10": (
        "mobilenet_v2",
        "MobileNetV2",
        dict(alpha=0.35, input_shape=(32, 32, 3), classes=10),
    ),
    "mobilenetv2_14_96_notop_max": (
        "mobilenet_v2",
        "MobileNetV2",
        dict(alpha=1.4, input_shape=(96, 96, 3), include_top=False, pooling="max"),
    ),
    "mobilenetv2_1_odd_notop": (
        "mobilenet_v2",
        "MobileNetV2",
        dict(alpha=1.0, input_shape=(33, 47, 3), include_top=False),
    ),
    "inceptionv3_notop_75": (
        "inception_v3",
        "InceptionV3",
        dict(include_top=False, input_shape=(75, 75, 3)),
    ),
    "inceptionv3_top_75_classes10": (
        "inception_v3",
        "InceptionV3",
        dict(include_top=True, input_shape=(75, 75, 3), classes=10),
    ),
    "xception_notop_71": ("xception", "Xception", dict(include_top=False, input_shape=(71, 71, 3))),
    "xception_top_71_classes10": (
        "xception",
        "Xception",
        dict(include_top=True, input_shape=(71, 71, 3), classes=10),
    ),
    "densenet121_top_32_classes10": (
        "densenet",
        "DenseNet121",
        dict(include_top=True, input_shape=(32, 32, 3), classes=10),
    ),
    "densenet169_notop_32": (
        "densenet",
        "DenseNet169",
        dict(include_top=False, input_shape=(32, 32, 3)),
    ),
    "densenet201_notop_max_32": (
        "densenet",
        "DenseNet201",
        dict(include_top=False, input_shape=(32, 32, 3), pooling="max"),
    ),
    "inceptionresnetv2_notop_75": (
        "inception_resnet_v2",
        "InceptionResNetV2",
        dict(include_top=False, input_shape=(75, 75, 3)),
    ),
    "inceptionresnetv2_top_75_classes10": (
        "inception_resnet_v2",
        "InceptionResNetV2",
        dict(include_top=True, input_shape=(75, 75, 3), classes=10),
    ),
    "nasnetmobile_32_classes10": (
        "nasnet",
        "NASNetMobile",
        dict(input_shape=(32, 32, 3), classes=10),
    ),
    "nasnetlarge_notop_avg_32": (
        "nasnet",
        "NASNetLarge",
        dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"),
    ),
    "top_level_names_resnet50v2": (
        "",
        "ResNet50V2",
        dict(include_top=False, input_shape=(32, 32, 3)),
    ),
}
for _module, _fn, _kwargs in STRUCTURES.values():
    _kwargs["weights"] = None

# Argument checks: case -> (module, function, kwargs); each raises before any download.
ERRORS = {
    "imagenet_with_10_classes": ("vgg16", "VGG16", dict(weights="imagenet", classes=10)),
    "weights_neither_none_imagenet_nor_a_file": (
        "resnet",
        "ResNet50",
        dict(weights="/nonexistent/weights.h5"),
    ),
    "input_smaller_than_minimum": (
        "vgg16",
        "VGG16",
        dict(weights=None, include_top=False, input_shape=(31, 40, 3)),
    ),
    "inception_input_smaller_than_75": (
        "inception_v3",
        "InceptionV3",
        dict(weights=None, include_top=False, input_shape=(74, 75, 3)),
    ),
    "top_needs_static_shape": (
        "densenet",
        "DenseNet121",
        dict(weights=None, include_top=True, input_shape=(None, None, 3)),
    ),
    "imagenet_top_needs_default_shape": (
        "xception",
        "Xception",
        dict(weights="imagenet", include_top=True, input_shape=(128, 128, 3)),
    ),
    "imagenet_needs_3_channels": (
        "inception_resnet_v2",
        "InceptionResNetV2",
        dict(weights="imagenet", include_top=False, input_shape=(128, 128, 1)),
    ),
    "input_shape_of_two": (
        "vgg19",
        "VGG19",
        dict(weights=None, include_top=False, input_shape=(32, 32)),
    ),
    "unknown_keyword": ("vgg16", "VGG16", dict(weights=None, frobnicate=1)),
    "mobilenet_imagenet_depth_multiplier": (
        "mobilenet",
        "MobileNet",
        dict(weights="imagenet", depth_multiplier=2),
    ),
    "mobilenet_imagenet_alpha": ("mobilenet", "MobileNet", dict(weights="imagenet", alpha=0.3)),
    "mobilenetv2_imagenet_alpha": (
        "mobilenet_v2",
        "MobileNetV2",
        dict(weights="imagenet", alpha=0.3),
    ),
    "nasnet_imagenet_unknown_size": (
        "nasnet",
        "NASNetMobile",
        dict(weights="imagenet", include_top=False, input_shape=(None, None, 3)),
    ),
    "nasnet_needs_static_shape": (
        "nasnet",
        "NASNetMobile",
        dict(weights=None, include_top=False, input_shape=(None, None, 3)),
    ),
}

# Prediction cases: case -> (module, function, kwargs, batch). Weights are set from
# seeded_weights (the h5 case loads TF's own file instead).
PREDICTIONS = {
    "vgg16_notop_32": ("vgg16", "VGG16", dict(include_top=False, input_shape=(32, 32, 3)), 2),
    "mobilenetv2_035_32_classes10": (
        "mobilenet_v2",
        "MobileNetV2",
        dict(alpha=0.35, input_shape=(32, 32, 3), classes=10),
        2,
    ),
    "resnet50v2_notop_avg_32": (
        "resnet_v2",
        "ResNet50V2",
        dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"),
        1,
    ),
    "densenet121_notop_avg_32": (
        "densenet",
        "DenseNet121",
        dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"),
        1,
    ),
    "inceptionresnetv2_notop_avg_75": (
        "inception_resnet_v2",
        "InceptionResNetV2",
        dict(include_top=False, input_shape=(75, 75, 3), pooling="avg"),
        1,
    ),
    "xception_notop_avg_71": (
        "xception",
        "Xception",
        dict(include_top=False, input_shape=(71, 71, 3), pooling="avg"),
        1,
    ),
    "nasnetmobile_notop_avg_32": (
        "nasnet",
        "NASNetMobile",
        dict(include_top=False, input_shape=(32, 32, 3), pooling="avg"),
        1,
    ),
    "inceptionv3_notop_avg_75": (
        "inception_v3",
        "InceptionV3",
        dict(include_top=False, input_shape=(75, 75, 3), pooling="avg"),
        1,
    ),
}
for _module, _fn, _kwargs, _batch in PREDICTIONS.values():
    _kwargs["weights"] = None

# The model whose initial weights TF saves as HDF5 (data/keras_applications/), which the
# test loads into tfcluster's model by topology, by name, and as `weights=<path>`.
H5_MODEL = ("mobilenet", "MobileNet", dict(alpha=0.25, input_shape=(32, 32, 3), classes=10))
H5_FILE = "mobilenet_025_32_classes10_initial.h5"


def application(keras: Any, module: str, function: str) -> Any:
    """tf.keras.applications.<module>.<function> (the top level where module is "")."""
    apps = keras.applications
    return getattr(getattr(apps, module) if module else apps, function)


def _shape(shape: Any) -> Any:
    if isinstance(shape, list):
        return [_shape(s) for s in shape]
    return [None if d is None else int(d) for d in shape]


# Config entries left out of the comparison: names and dtypes (compared apart), and what a
# Lambda's function serialises to (bytecode and module differ between the two).
_CONFIG_SKIP = (
    "name",
    "trainable",
    "dtype",
    "function",
    "function_type",
    "module",
    "output_shape_module",
    "output_shape_type",
)


def _plain(value: Any) -> Any:
    """JSON-ready copies of TF's tracked dicts and lists (a Lambda's `arguments`) and numpy
    values (TF's ReLU keeps max_value as a 0-d float32 array)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    if hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ListWrapper":
        return [_plain(v) for v in value]
    return value


def _compact_config(config: dict) -> dict:
    """A layer's config without None entries, initializers by class name only."""
    out = {}
    for key, value in sorted(config.items()):
        if key in _CONFIG_SKIP or value is None:
            continue
        if isinstance(value, dict) and "class_name" in value:
            value = value["class_name"]
        out[key] = _plain(value)
    return out


def connectivity(model: Any) -> list:
    """Per layer: its compact config and the names of the layers feeding each of its calls."""
    out = []
    for layer in model.get_config()["layers"]:
        inbound = [[entry[0] for entry in node] for node in layer["inbound_nodes"]]
        out.append([layer["class_name"], _compact_config(layer["config"]), inbound])
    return out


def describe(model: Any) -> dict:
    """Model name, layers (name, class, output shape, weights' names and shapes) in order,
    and parameter counts."""
    layers = []
    for layer in model.layers:
        weights = [[w.name, [int(d) for d in w.shape]] for w in layer.weights]
        layers.append([layer.name, type(layer).__name__, _shape(layer.output_shape), weights])
    return {
        "name": model.name,
        "layers": layers,
        "configs": connectivity(model),
        "count_params": int(model.count_params()),
        "trainable": len(model.trainable_weights),
        "non_trainable": len(model.non_trainable_weights),
        "inputs": [t.shape.as_list() for t in model.inputs],
        "outputs": [t.shape.as_list() for t in model.outputs],
    }


def pack(description: dict) -> bytes:
    """A model's description as compressed JSON (layer lists of big models repeat a lot)."""
    return zlib.compress(json.dumps(description, sort_keys=True).encode("utf-8"), 9)


def unpack(packed: bytes) -> dict:
    return json.loads(zlib.decompress(packed).decode("utf-8"))


def seeded_weights(model: Any, seed: int = 0) -> list:
    """Values for model.set_weights from a seeded numpy generator: kernels scaled by
    1/sqrt(fan_in), biases and BatchNormalization's beta/mean small, gamma and variance
    around 1, so activations stay in range through deep models."""
    rng = np.random.RandomState(seed)
    values = []
    for w in model.weights:
        shape = tuple(int(d) for d in w.shape)
        name = w.name.split("/")[-1].split(":")[0]
        if name in ("gamma", "moving_variance"):
            v = 0.75 + 0.5 * rng.random_sample(shape)
        elif len(shape) <= 1:
            v = 0.1 * rng.standard_normal(shape)
        else:
            fan_in = (
                int(np.prod(shape[:-1])) if name != "depthwise_kernel" else int(np.prod(shape[:2]))
            )
            v = rng.standard_normal(shape) / np.sqrt(fan_in)
        values.append(v.astype(np.float32))
    return values


def digest(x: np.ndarray) -> str:
    """sha256 of an array's bytes: how the recorded inputs are checked (their sums differ
    between numpy versions)."""
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()


def prediction_input(shape: Any, batch: int, seed: int = 1) -> np.ndarray:
    """A fixed batch of images in [-1, 1] (what mode 'tf' preprocessing gives)."""
    rng = np.random.RandomState(seed)
    return rng.uniform(-1.0, 1.0, (batch, *tuple(shape))).astype(np.float32)


# preprocess_input cases: case -> (module, kwargs, input array maker).
def preprocess_inputs() -> dict:
    rng = np.random.RandomState(7)
    images = rng.randint(0, 256, (2, 3, 4, 3)).astype(np.uint8)
    return {
        "uint8_batch": images,
        "float32_batch": images.astype(np.float32),
        "float64_single": images[0].astype(np.float64),
        "int32_channels_first": np.transpose(images, (0, 3, 1, 2)).astype(np.int32),
        "float32_single_channels_first": np.transpose(images[1], (2, 0, 1)).astype(np.float32),
    }


PREPROCESS = {
    # case -> (module, input name, data_format or None, mode or None)
    "imagenet_utils_caffe_uint8": ("imagenet_utils", "uint8_batch", None, None),
    "imagenet_utils_tf_float32": ("imagenet_utils", "float32_batch", None, "tf"),
    "imagenet_utils_torch_float64_single": ("imagenet_utils", "float64_single", None, "torch"),
    "imagenet_utils_caffe_channels_first": (
        "imagenet_utils",
        "int32_channels_first",
        "channels_first",
        "caffe",
    ),
    "imagenet_utils_torch_single_channels_first": (
        "imagenet_utils",
        "float32_single_channels_first",
        "channels_first",
        "torch",
    ),
    "vgg16_float32": ("vgg16", "float32_batch", None, None),
    "vgg19_uint8": ("vgg19", "uint8_batch", None, None),
    "resnet_float32": ("resnet", "float32_batch", None, None),
    "resnet50_float64_single": ("resnet50", "float64_single", None, None),
    "resnet_v2_uint8": ("resnet_v2", "uint8_batch", None, None),
    "mobilenet_float32": ("mobilenet", "float32_batch", None, None),
    "mobilenet_v2_uint8": ("mobilenet_v2", "uint8_batch", None, None),
    "inception_v3_float32": ("inception_v3", "float32_batch", None, None),
    "inception_resnet_v2_float32": ("inception_resnet_v2", "float32_batch", None, None),
    "xception_float32": ("xception", "float32_batch", None, None),
    "densenet_float32": ("densenet", "float32_batch", None, None),
    "densenet_channels_first": ("densenet", "int32_channels_first", "channels_first", None),
    "nasnet_float32": ("nasnet", "float32_batch", None, None),
}


def preprocess_kwargs(data_format: Any, mode: Any) -> dict:
    kwargs = {}
    if data_format is not None:
        kwargs["data_format"] = data_format
    if mode is not None:
        kwargs["mode"] = mode
    return kwargs


# decode_predictions: a synthetic class index (TF's module global is set to it in the
# recorder; the test writes it as ~/.keras/models/imagenet_class_index.json).
def class_index() -> dict:
    return {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}


def decode_inputs() -> dict:
    rng = np.random.RandomState(3)
    preds = rng.random_sample((3, 1000)).astype(np.float32)
    ties = np.zeros((1, 1000), np.float32)
    ties[0, [5, 900, 17]] = 0.5
    return {"batch_top5": (preds, 5), "batch_top3": (preds, 3), "ties_top4": (ties, 4)}
