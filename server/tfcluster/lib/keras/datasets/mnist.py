"""tf.keras.datasets.mnist.load_data: reads ~/.keras/datasets/mnist.npz (downloaded as TF
does when absent). Unlike TF 1.15, a file already there is used without checking its hash
(1.15 re-downloads a file whose SHA-256 differs), so local data works without a network."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfcluster.lib.keras.utils import get_file

_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
_SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path: str = "mnist.npz") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    cached = os.path.join(os.path.expanduser("~"), ".keras", "datasets", path)
    if os.path.exists(cached):
        path = cached
    else:
        path = get_file(path, origin=_ORIGIN, file_hash=_SHA256)
    with np.load(path, allow_pickle=True) as f:
        x_train, y_train = f["x_train"], f["y_train"]
        x_test, y_test = f["x_test"], f["y_test"]
    return (x_train, y_train), (x_test, y_test)
