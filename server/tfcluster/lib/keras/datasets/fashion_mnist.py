"""tf.keras.datasets.fashion_mnist.load_data as TF 1.15: the four gzip IDX files through
get_file into ~/.keras/datasets/fashion-mnist (TF checks no hash for them); uint8 images
(n, 28, 28) and uint8 labels (n,)."""

from __future__ import annotations

import gzip
import os
from typing import Any

import numpy as np

from tfcluster.lib.keras.utils import get_file

_ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
_FILES = [
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
]


def load_data() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    subdir = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(f, origin=_ORIGIN_FOLDER + f, cache_subdir=subdir) for f in _FILES]
    y_train = _read(paths[0], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    y_test = _read(paths[2], 8)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


def _read(path: str, header: int) -> np.ndarray:
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=header)
