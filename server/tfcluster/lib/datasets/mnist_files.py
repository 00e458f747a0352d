"""The MNIST tutorial reader of TF 1.x (`tensorflow.examples.tutorials.mnist.input_data`).

Reads the four gzipped IDX files from `train_dir` (downloading them first when absent, as TF
does) into `DataSet`s whose `next_batch` shuffles with numpy's global generator seeded from
TF's seed rules, so a program given the same seeds draws the same batches as under TF.
"""

from __future__ import annotations

import collections
import gzip
import os
import shutil
import tempfile
import urllib.request
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import get_seed
from tfcluster.lib.io import gfile
from tfcluster.lib.platform.function_deprecation import deprecated

DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])

_MNIST = "tensorflow.contrib.learn.python.learn.datasets.mnist"
_BASE = "tensorflow.contrib.learn.python.learn.datasets.base"
_USE_MODELS = "Please use alternatives such as official/mnist/dataset.py from tensorflow/models."
_USE_TF_DATA = "Please use tf.data to implement this functionality."


def _read_big_endian_u32(stream: gzip.GzipFile) -> int:
    raw = stream.read(4)
    if len(raw) != 4:
        raise ValueError("MNIST file ends inside its header")
    return int.from_bytes(raw, "big")


def _payload(stream: gzip.GzipFile, size: int, name: str) -> np.ndarray:
    buf = stream.read(size)
    if len(buf) != size:
        raise ValueError(f"MNIST file {name} is truncated: {len(buf)} of {size} bytes")
    return np.frombuffer(buf, dtype=np.uint8)


@deprecated("extract_images", _MNIST, _USE_TF_DATA)
def extract_images(f: Any) -> np.ndarray:
    """The images of an IDX3 gzip file object as uint8 [index, y, x, 1]."""
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read_big_endian_u32(stream)
        if magic != IMAGES_MAGIC:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: {f.name}")
        count, rows, cols = (_read_big_endian_u32(stream) for _ in range(3))
        data = _payload(stream, rows * cols * count, f.name)
        return data.reshape(count, rows, cols, 1)


@deprecated("dense_to_one_hot", _MNIST, "Please use tf.one_hot on tensors.")
def dense_to_one_hot(labels_dense: np.ndarray, num_classes: int) -> np.ndarray:
    """Class ids -> float64 one-hot rows (TF's tutorial reader returns float64 here)."""
    out = np.zeros((labels_dense.shape[0], num_classes))
    out[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return out


@deprecated("extract_labels", _MNIST, _USE_TF_DATA)
def extract_labels(f: Any, one_hot: bool = False, num_classes: int = 10) -> np.ndarray:
    """The labels of an IDX1 gzip file object: uint8 [index], or one-hot rows."""
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read_big_endian_u32(stream)
        if magic != LABELS_MAGIC:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: {f.name}")
        labels = _payload(stream, _read_big_endian_u32(stream), f.name)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels with epoch-wise shuffled batches, as TF's tutorial DataSet."""

    @deprecated("DataSet.__init__", _MNIST, _USE_MODELS)
    def __init__(
        self,
        images: Any,
        labels: Any,
        fake_data: bool = False,
        one_hot: bool = False,
        dtype: Any = dtypes.float32,
        reshape: bool = True,
        seed: int | None = None,
    ) -> None:
        graph_seed, op_seed = get_seed(seed)
        # TF seeds numpy's global generator: the graph seed, or the op seed when one is given.
        np.random.seed(graph_seed if seed is None else op_seed)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError(f"reshape needs one channel, images have {images.shape[3]}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self) -> Any:
        return self._images

    @property
    def labels(self) -> Any:
        return self._labels

    @property
    def num_examples(self) -> int:
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        return self._epochs_completed

    def _shuffle(self) -> None:
        order = np.arange(self._num_examples)
        np.random.shuffle(order)
        self._images = self._images[order]
        self._labels = self._labels[order]

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle: bool = True) -> Any:
        """The next `batch_size` examples; an epoch's end wraps into the next, reshuffled."""
        if fake_data:
            image = [1] * 784
            label: Any = [1] + [0] * 9 if self.one_hot else 0
            return [image for _ in range(batch_size)], [label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            end = self._index_in_epoch
            return self._images[start:end], self._labels[start:end]
        self._epochs_completed += 1
        images_rest = self._images[start : self._num_examples]
        labels_rest = self._labels[start : self._num_examples]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = batch_size - (self._num_examples - start)
        end = self._index_in_epoch
        return (
            np.concatenate((images_rest, self._images[:end]), axis=0),
            np.concatenate((labels_rest, self._labels[:end]), axis=0),
        )


@deprecated("maybe_download", _BASE, "Please write your own downloading logic.")
def maybe_download(filename: str, work_directory: str, source_url: str) -> str:
    """`work_directory/filename`, downloaded from `source_url` first when it is not there."""
    if not gfile.exists(work_directory):
        gfile.makedirs(work_directory)
    filepath = os.path.join(work_directory, filename)
    if not gfile.exists(filepath):
        with (
            tempfile.NamedTemporaryFile(delete=False) as tmp,
            urllib.request.urlopen(source_url) as answer,
        ):
            shutil.copyfileobj(answer, tmp)
        gfile.copy(tmp.name, filepath)
        os.unlink(tmp.name)
        print("Successfully downloaded", filename, gfile.stat(filepath).length, "bytes.")
    return filepath


def _read(train_dir: str, name: str, source_url: str, **label_options: Any) -> np.ndarray:
    path = maybe_download(name, train_dir, source_url + name)
    with gfile.GFile(path, "rb") as f:
        return extract_labels(f, **label_options) if label_options else extract_images(f)


@deprecated("read_data_sets", _MNIST, _USE_MODELS)
def read_data_sets(
    train_dir: str,
    fake_data: bool = False,
    one_hot: bool = False,
    dtype: Any = dtypes.float32,
    reshape: bool = True,
    validation_size: int = 5000,
    seed: int | None = None,
    source_url: str = DEFAULT_SOURCE_URL,
) -> Datasets:
    """MNIST's train/validation/test DataSets from `train_dir` (validation: the first
    `validation_size` training examples)."""
    if fake_data:
        return Datasets(
            *(
                DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
                for _ in range(3)
            )
        )
    source_url = source_url or DEFAULT_SOURCE_URL
    train_images = _read(train_dir, TRAIN_IMAGES, source_url)
    train_labels = _read(train_dir, TRAIN_LABELS, source_url, one_hot=one_hot)
    test_images = _read(train_dir, TEST_IMAGES, source_url)
    test_labels = _read(train_dir, TEST_LABELS, source_url, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(
            f"Validation size should be between 0 and {len(train_images)}. "
            f"Received: {validation_size}."
        )
    options: dict[str, Any] = {"dtype": dtype, "reshape": reshape, "seed": seed}
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
        validation=DataSet(
            train_images[:validation_size], train_labels[:validation_size], **options
        ),
        test=DataSet(test_images, test_labels, **options),
    )


@deprecated("load_mnist", _MNIST, _USE_MODELS)
def load_mnist(train_dir: str = "MNIST-data") -> Datasets:
    return read_data_sets(train_dir)
