"""tf.keras.datasets.cifar100.load_data as TF 1.15: cifar-100-python.tar.gz through get_file
(untarred into ~/.keras/datasets/cifar-100-python), the train and test pickles with the
'fine' or 'coarse' labels as an int array of shape (n, 1); images NHWC (channels_last)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfcluster.lib.keras.datasets import cifar
from tfcluster.lib.keras.utils import get_file

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
_FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


def load_data(label_mode: str = "fine") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    if label_mode not in ["fine", "coarse"]:
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`.')
    path = get_file("cifar-100-python", origin=_ORIGIN, untar=True, file_hash=_FILE_HASH)
    key = label_mode + "_labels"
    x_train, labels_train = cifar.load_batch(os.path.join(path, "train"), label_key=key)
    x_test, labels_test = cifar.load_batch(os.path.join(path, "test"), label_key=key)
    y_train = np.reshape(labels_train, (len(labels_train), 1))
    y_test = np.reshape(labels_test, (len(labels_test), 1))
    return (cifar.to_image_format(x_train), y_train), (cifar.to_image_format(x_test), y_test)
