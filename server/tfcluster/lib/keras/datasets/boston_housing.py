"""tf.keras.datasets.boston_housing.load_data as TF 1.15: boston_housing.npz through
get_file (cached in ~/.keras/datasets, hash checked), a seeded shuffle, then the test split."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.lib.keras.utils import get_file

_ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
_FILE_HASHES = {
    "boston_housing.npz": "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"
}


def load_data(
    path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    if not 0 <= test_split < 1:
        raise AssertionError(f"test_split must be in [0, 1), got {test_split}")
    path = get_file(
        path,
        origin=_ORIGIN_FOLDER + "boston_housing.npz",
        file_hash=_FILE_HASHES["boston_housing.npz"],
    )
    with np.load(path) as f:
        x, y = f["x"], f["y"]
    np.random.seed(seed)
    indices = np.arange(len(x))
    np.random.shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
