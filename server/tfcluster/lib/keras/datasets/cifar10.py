"""tf.keras.datasets.cifar10.load_data as TF 1.15: cifar-10-python.tar.gz through get_file
(untarred into ~/.keras/datasets/cifar-10-batches-py), five training batches and one test
batch; uint8 images NHWC (channels_last) and uint8 labels of shape (n, 1)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfcluster.lib.keras.datasets import cifar
from tfcluster.lib.keras.utils import get_file

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
_FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


def load_data() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    path = get_file("cifar-10-batches-py", origin=_ORIGIN, untar=True, file_hash=_FILE_HASH)
    # TF fills a preallocated (50000, ...) uint8 array; joining the batches gives the same
    # arrays for the real files (10000 images each).
    batches = [cifar.load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in batches]).astype(np.uint8)
    y_train = np.concatenate([np.asarray(y) for _, y in batches]).astype(np.uint8)
    x_test, labels_test = cifar.load_batch(os.path.join(path, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(labels_test, (len(labels_test), 1)).astype(y_train.dtype)
    x_train, x_test = cifar.to_image_format(x_train), cifar.to_image_format(x_test)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test)
