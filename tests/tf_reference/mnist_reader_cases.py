"""Programs of the MNIST tutorial reader (`tensorflow.examples.tutorials.mnist.input_data`),
run on TensorFlow 1.15 by record_mnist_reader.py and on tfcluster by its test.

The IDX files are small and made here from a seeded generator, so both sides read the same
bytes; what is compared is what a program sees: shapes, dtypes, values and the order of the
batches (numpy's generator seeded by TF's seed rules). Runs on Python 3.7 too.
"""

from __future__ import annotations

import gzip
import os
import struct

import numpy as np

TRAIN, TEST = 60, 20


def write_idx_files(directory: str) -> None:
    """train/t10k images (IDX3, 28x28) and labels (IDX1) as gzip files in `directory`."""
    rng = np.random.RandomState(1234)
    for prefix, count in (("train", TRAIN), ("t10k", TEST)):
        images = rng.randint(0, 256, size=(count, 28, 28)).astype(np.uint8)
        labels = rng.randint(0, 10, size=count).astype(np.uint8)
        with gzip.open(os.path.join(directory, prefix + "-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, count, 28, 28) + images.tobytes())
        with gzip.open(os.path.join(directory, prefix + "-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 2049, count) + labels.tobytes())


def _batches(dataset, size: int, count: int, shuffle: bool = True) -> dict:
    labels, image_sums = [], []
    for _ in range(count):
        x, y = dataset.next_batch(size, shuffle=shuffle)
        labels.append(np.asarray(y).tolist())
        image_sums.append(float(np.asarray(x, dtype=np.float64).sum()))
    return {"labels": labels, "image_sums": image_sums, "epochs": dataset.epochs_completed}


def graph_seed_orders_the_batches(tf, input_data, directory: str) -> dict:
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        data = input_data.read_data_sets(directory, validation_size=10)
    first = data.train.images
    return {
        "num_examples": [
            data.train.num_examples,
            data.validation.num_examples,
            data.test.num_examples,
        ],
        "images": [list(first.shape), str(first.dtype), float(first.max()), float(first[0].sum())],
        "labels": [list(data.train.labels.shape), str(data.train.labels.dtype)],
        "train": _batches(data.train, 16, 8),
        "validation": _batches(data.validation, 4, 3, shuffle=False),
    }


def op_seed_one_hot_uint8_unflattened(tf, input_data, directory: str) -> dict:
    with tf.Graph().as_default():
        data = input_data.read_data_sets(
            directory, one_hot=True, dtype=tf.uint8, reshape=False, validation_size=0, seed=5
        )
    return {
        "images": [list(data.train.images.shape), str(data.train.images.dtype)],
        "labels": [list(data.train.labels.shape), str(data.train.labels.dtype)],
        "train": _batches(data.train, 25, 5),
        "test": _batches(data.test, 7, 4),
    }


def fake_data_batches(tf, input_data, directory: str) -> dict:
    data = input_data.read_data_sets(directory, fake_data=True, one_hot=True)
    x, y = data.train.next_batch(3, fake_data=True)
    return {"x": [len(x), len(x[0]), sum(x[0])], "y": y, "n": data.test.num_examples}


def _error(fn) -> str:
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return "none"


def bad_arguments(tf, input_data, directory: str) -> dict:
    return {
        "dtype": _error(
            lambda: input_data.read_data_sets(directory, dtype=tf.int32, validation_size=10)
        ),
        "validation_size": _error(
            lambda: input_data.read_data_sets(directory, validation_size=TRAIN + 1)
        ),
    }


CASES = {
    f.__name__: f
    for f in (
        graph_seed_orders_the_batches,
        op_seed_one_hot_uint8_unflattened,
        fake_data_batches,
        bad_arguments,
    )
}
