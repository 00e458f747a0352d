"""tf.keras.utils: to_categorical, normalize, get_file and the Progbar."""

from __future__ import annotations

import hashlib
import os
import urllib.request
from typing import Any

import numpy as np

from tfcluster.lib.keras.utils.generic_utils import Progbar


def to_categorical(y: Any, num_classes: int | None = None, dtype: str = "float32") -> np.ndarray:
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, (*input_shape, num_classes))


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return np.asarray(x) / np.expand_dims(norm, axis)


def get_file(
    fname: str,
    origin: str,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: str = "auto",
    cache_dir: str | None = None,
) -> str:
    """The cached file ~/.keras/<cache_subdir>/<fname>, downloaded from origin when absent."""
    if untar or extract:
        from tfcluster.lib.keras.backend import unimplemented

        raise unimplemented("tf.keras.utils.get_file(untar/extract=True)")
    cache_dir = cache_dir or os.path.join(os.path.expanduser("~"), ".keras")
    directory = os.path.join(cache_dir, cache_subdir)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, fname)
    if not os.path.exists(path):
        print(f"Downloading data from {origin}")
        urllib.request.urlretrieve(origin, path)
        wanted = file_hash or md5_hash
        if wanted:
            algo = hashlib.sha256 if len(wanted) == 64 else hashlib.md5
            with open(path, "rb") as f:
                if algo(f.read()).hexdigest() != wanted:
                    os.remove(path)
                    raise ValueError(f"Incomplete or corrupted file detected: {path}")
    return path


__all__ = ["Progbar", "get_file", "normalize", "to_categorical"]
