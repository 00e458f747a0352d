"""tf.keras.applications.imagenet_utils (TF 1.15, Keras Applications 1.0.8): preprocess_input
for arrays and tensors in the modes 'caffe', 'tf' and 'torch', and decode_predictions.

Arrays are preprocessed in place where their dtype is already floating, as Keras does (a
caller wanting its array kept passes a copy); 'caffe' writes through its channel-reversed view.
Keras Applications keeps the mean constant of the first symbolic call in a module global and
reuses it for every later call, whatever its mode (and fails in another graph); each call here
makes its own, as that first call does.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tfcluster.lib.keras import backend, backend_math
from tfcluster.lib.keras.applications import weight_files

CLASS_INDEX_FILE = "imagenet_class_index.json"
CLASS_INDEX_ORIGIN = (
    "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
)
CLASS_INDEX_MD5 = "c2c37ea517e94d9795004a39431a14cb"

_CAFFE_MEAN = [103.939, 116.779, 123.68]  # BGR
_TORCH_MEAN = [0.485, 0.456, 0.406]
_TORCH_STD = [0.229, 0.224, 0.225]

# The class index, read once per process as Keras keeps it.
_class_index: dict[str, list[str]] | None = None


def check_kwargs(kwargs: dict[str, Any]) -> None:
    """Keras Applications' only accepted extra keywords are the modules tf.keras injects;
    anything else is its TypeError (whose arguments are the format string and the name)."""
    for key in kwargs:
        if key not in ("backend", "layers", "models", "utils"):
            raise TypeError("Invalid keyword argument: %s", key)


def _preprocess_array(x: np.ndarray, data_format: str, mode: str) -> np.ndarray:
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    std: list[float] | None
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        # RGB -> BGR as a view: the subtraction below writes through it.
        if data_format == "channels_first":
            x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
        else:
            x = x[..., ::-1]
        mean, std = _CAFFE_MEAN, None
    for c in range(3):
        channel = _channel(x, c, data_format)
        x[channel] -= mean[c]
        if std is not None:
            x[channel] /= std[c]
    return x


def _channel(x: np.ndarray, c: int, data_format: str) -> tuple[Any, ...]:
    if data_format == "channels_last":
        return (Ellipsis, c)
    if x.ndim == 3:
        return (c, slice(None), slice(None))
    return (slice(None), c, slice(None), slice(None))


def _preprocess_tensor(x: Any, data_format: str, mode: str) -> Any:
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    std: list[float] | None
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        if data_format == "channels_first":
            x = x[::-1, ...] if backend.ndim(x) == 3 else x[:, ::-1, ...]
        else:
            x = x[..., ::-1]
        mean, std = _CAFFE_MEAN, None
    negative_mean = backend.constant(-np.array(mean))
    if backend.dtype(x) != backend.dtype(negative_mean):
        negative_mean = backend.cast(negative_mean, backend.dtype(x))
    x = backend_math.bias_add(x, negative_mean, data_format=data_format)
    if std is not None:
        x /= std
    return x


def preprocess_input(
    x: Any, data_format: str | None = None, mode: str = "caffe", **kwargs: Any
) -> Any:
    """Scales a batch of images (or one image) as the ImageNet models were trained: 'caffe'
    (RGB to BGR, minus the BGR means), 'tf' (to [-1, 1]) or 'torch' (to [0, 1], minus the
    means, over the deviations)."""
    check_kwargs(kwargs)
    if data_format is None:
        data_format = backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format " + str(data_format))
    if isinstance(x, np.ndarray):
        return _preprocess_array(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _load_class_index() -> dict[str, list[str]]:
    global _class_index
    if _class_index is None:
        path = weight_files.cached_or_fetched(CLASS_INDEX_FILE, CLASS_INDEX_ORIGIN, CLASS_INDEX_MD5)
        with open(path) as f:
            _class_index = json.load(f)
    return _class_index


def decode_predictions(preds: Any, top: int = 5, **kwargs: Any) -> list[list[tuple[Any, ...]]]:
    """(class id, description, score) of the `top` best classes of each row of a (samples,
    1000) array, best first. The class names come from imagenet_class_index.json in Keras's
    cache (~/.keras/models/)."""
    check_kwargs(kwargs)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            "(samples, 1000)). Found array with shape: " + str(preds.shape)
        )
    index = _load_class_index()
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        row = [(*index[str(i)], pred[i]) for i in best]
        row.sort(key=lambda r: r[2], reverse=True)
        results.append(row)
    return results


def preprocess_input_tf(x: Any, **kwargs: Any) -> Any:
    """preprocess_input of the models trained on inputs in [-1, 1] (mode 'tf')."""
    return preprocess_input(x, mode="tf", **kwargs)


def preprocess_input_caffe(x: Any, **kwargs: Any) -> Any:
    """preprocess_input of the ResNets (mode 'caffe', fixed)."""
    return preprocess_input(x, mode="caffe", **kwargs)
