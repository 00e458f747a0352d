"""Small files in the real formats of tf.keras.datasets (npz, cifar pickles in a tar.gz,
gzip IDX, word-index json) and the loader calls made on them, run on TensorFlow 1.15 by
record_keras_datasets.py and on tfcluster by tests/unit/test_keras_datasets.py.

Only CIFAR-10 is full size: TF's loader fills a preallocated (50000, 3, 32, 32) array, so its
five batches must hold 10000 images each. Runs on Python 3.7 too.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import pickle
import struct
import tarfile

import numpy as np

# file name in the cache -> what the loaders call get_file with (the dataset module's name).
FILES = {
    "boston_housing.npz": "boston_housing",
    "cifar-10-python.tar.gz": "cifar10",
    "cifar-100-python.tar.gz": "cifar100",
    "train-labels-idx1-ubyte.gz": "fashion_mnist",
    "train-images-idx3-ubyte.gz": "fashion_mnist",
    "t10k-labels-idx1-ubyte.gz": "fashion_mnist",
    "t10k-images-idx3-ubyte.gz": "fashion_mnist",
    "imdb.npz": "imdb",
    "imdb_word_index.json": "imdb",
    "reuters.npz": "reuters",
    "reuters_word_index.json": "reuters",
}

# case name -> (dataset module, function, keyword arguments)
CASES = {
    "boston_default": ("boston_housing", "load_data", {}),
    "boston_split_seed": ("boston_housing", "load_data", {"test_split": 0.3, "seed": 5}),
    "cifar10": ("cifar10", "load_data", {}),
    "cifar100_fine": ("cifar100", "load_data", {}),
    "cifar100_coarse": ("cifar100", "load_data", {"label_mode": "coarse"}),
    "cifar100_bad_mode": ("cifar100", "load_data", {"label_mode": "medium"}),
    "fashion_mnist": ("fashion_mnist", "load_data", {}),
    "imdb_default": ("imdb", "load_data", {}),
    "imdb_vocab": ("imdb", "load_data", {"num_words": 20, "skip_top": 4}),
    "imdb_maxlen": ("imdb", "load_data", {"maxlen": 9, "seed": 7}),
    "imdb_no_shift": (
        "imdb",
        "load_data",
        {"start_char": None, "oov_char": None, "index_from": 0, "num_words": 15},
    ),
    "imdb_index_only": ("imdb", "load_data", {"start_char": None, "index_from": 2}),
    "imdb_nb_words": ("imdb", "load_data", {"nb_words": 12}),
    "imdb_maxlen_too_small": ("imdb", "load_data", {"maxlen": 1}),
    "imdb_unknown_kwarg": ("imdb", "load_data", {"words": 3}),
    "imdb_word_index": ("imdb", "get_word_index", {}),
    "reuters_default": ("reuters", "load_data", {}),
    "reuters_options": (
        "reuters",
        "load_data",
        {"num_words": 25, "skip_top": 2, "maxlen": 10, "test_split": 0.3, "seed": 3},
    ),
    "reuters_no_oov": ("reuters", "load_data", {"oov_char": None, "num_words": 18}),
    "reuters_word_index": ("reuters", "get_word_index", {}),
}


def _tar_gz(path: str, members: dict) -> None:
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        for name, payload in sorted(members.items()):
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            archive.addfile(info, io.BytesIO(payload))


def _cifar_pickle(rng, count: int, labels: dict) -> bytes:
    # Each image is one random image shifted by one of four offsets: every pixel position
    # differs (so a wrong layout shows) yet the 180 MB of CIFAR-10 gzip quickly.
    base = rng.randint(0, 256, size=3072).astype(np.uint8)
    data = base[None, :] + (rng.randint(0, 4, size=(count, 1)) * 61).astype(np.uint8)
    d = {b"data": data, b"batch_label": b"batch"}
    for key, classes in labels.items():
        d[key.encode()] = [int(v) for v in rng.randint(0, classes, size=count)]
    return pickle.dumps(d, protocol=2)


def _sequences(rng, count: int, vocab: int) -> np.ndarray:
    out = np.empty(count, dtype=object)
    out[:] = [
        [int(w) for w in rng.randint(1, vocab, size=rng.randint(1, 14))] for _ in range(count)
    ]
    return out


def write_files(directory: str) -> None:
    """Every file of FILES, made from seeded generators, into `directory`."""
    rng = np.random.RandomState(2024)
    np.savez(
        os.path.join(directory, "boston_housing.npz"), x=rng.rand(31, 13) * 100, y=rng.rand(31) * 50
    )
    members = {
        f"cifar-10-batches-py/data_batch_{i}": _cifar_pickle(rng, 10000, {"labels": 10})
        for i in range(1, 6)
    }
    members["cifar-10-batches-py/test_batch"] = _cifar_pickle(rng, 10000, {"labels": 10})
    _tar_gz(os.path.join(directory, "cifar-10-python.tar.gz"), members)
    fine_coarse = {"fine_labels": 100, "coarse_labels": 20}
    _tar_gz(
        os.path.join(directory, "cifar-100-python.tar.gz"),
        {
            "cifar-100-python/train": _cifar_pickle(rng, 40, fine_coarse),
            "cifar-100-python/test": _cifar_pickle(rng, 12, fine_coarse),
        },
    )
    for prefix, count in (("train", 30), ("t10k", 9)):
        images = rng.randint(0, 256, size=(count, 28, 28)).astype(np.uint8)
        labels = rng.randint(0, 10, size=count).astype(np.uint8)
        with gzip.open(os.path.join(directory, prefix + "-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, count, 28, 28) + images.tobytes())
        with gzip.open(os.path.join(directory, prefix + "-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 2049, count) + labels.tobytes())
    np.savez(
        os.path.join(directory, "imdb.npz"),
        x_train=_sequences(rng, 20, 30),
        y_train=rng.randint(0, 2, size=20),
        x_test=_sequences(rng, 11, 30),
        y_test=rng.randint(0, 2, size=11),
    )
    np.savez(
        os.path.join(directory, "reuters.npz"),
        x=_sequences(rng, 27, 40),
        y=rng.randint(0, 46, size=27),
    )
    for name in ("imdb_word_index.json", "reuters_word_index.json"):
        with open(os.path.join(directory, name), "w") as f:
            json.dump({f"w{i}": i for i in range(1, 25)}, f)


def describe(value):
    """What is compared of a loader's result: every array's shape and dtype, object arrays
    (word sequences) as lists, numeric arrays by their bytes' sha256 and first values."""
    if isinstance(value, (tuple, list)):
        return [describe(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[k, v] for k, v in sorted(value.items())]}
    array = np.asarray(value)
    if array.dtype == object:
        return {
            "dtype": "object",
            "shape": list(array.shape),
            "lists": [[int(w) for w in s] for s in array],
        }
    contiguous = np.ascontiguousarray(array)
    return {
        "dtype": array.dtype.name,
        "shape": list(array.shape),
        "sha256": hashlib.sha256(contiguous.tobytes()).hexdigest(),
        "head": contiguous.reshape(-1)[:8].tolist(),
    }


def file_sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
