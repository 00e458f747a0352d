"""tf.keras.datasets.mnist.load_data as TF 1.15: mnist.npz through get_file (cached in
~/.keras/datasets, its SHA-256 checked: a cached file with another hash is fetched again)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras.utils import get_file

_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
_FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path: str = "mnist.npz") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    path = get_file(path, origin=_ORIGIN, file_hash=_FILE_HASH)
    with np.load(path, allow_pickle=True) as f:
        x_train, y_train = f["x_train"], f["y_train"]
        x_test, y_test = f["x_test"], f["y_test"]
    return (x_train, y_train), (x_test, y_test)
