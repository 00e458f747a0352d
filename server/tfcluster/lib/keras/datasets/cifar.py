"""What CIFAR-10 and CIFAR-100 share: reading one pickled batch (bytes keys, rows of 3072
uint8 in channel-major order) as TF 1.15's keras.datasets.cifar.load_batch does."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np


def load_batch(fpath: str, label_key: str = "labels") -> tuple[np.ndarray, Any]:
    """(data of shape (n, 3, 32, 32), the labels as stored: a list of ints)."""
    with open(fpath, "rb") as f:
        raw = pickle.load(f, encoding="bytes")
    d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in raw.items()}
    data = np.asarray(d["data"])
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def to_image_format(x: np.ndarray) -> np.ndarray:
    """NCHW batches as the Keras image data format wants them (NHWC by default)."""
    from tfcluster.lib.keras import backend

    if backend.image_data_format() == "channels_last":
        return x.transpose(0, 2, 3, 1)
    return x
