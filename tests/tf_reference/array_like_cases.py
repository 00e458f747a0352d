"""Values numpy converts itself (a pandas Series, an object with __array__ or
__array_interface__, a bytearray, an array.array) given where TF 1.15 takes a tensor, and the
`tensorflow.python.data` package's names: Google's ML Crash Course input functions pass a
pandas Series of labels to `Dataset.from_tensor_slices` after
`from tensorflow.python.data import Dataset`. Each case is `fn(tf) -> plain values`, run on
TF 1.15 by record_array_like.py and on tfcluster by tests/unit/test_array_like_values.py.
Python 3.7 code, numpy only (the Series is stood in for by an object with __array__)."""

from __future__ import annotations

import array
import importlib

import numpy as np


class SeriesLike:
    """What TF sees of a pandas Series: no list, no ndarray, but `__array__`."""

    def __init__(self, values):
        self._values = np.asarray(values)

    def __array__(self, dtype=None):
        return self._values if dtype is None else self._values.astype(dtype)

    def __len__(self):
        return len(self._values)


class InterfaceOnly:
    """An object that offers numpy only its `__array_interface__` dict."""

    def __init__(self, values):
        self._keep = np.ascontiguousarray(values)
        self.__array_interface__ = self._keep.__array_interface__


def _described(tf, t):
    with tf.Session() as sess:
        value = sess.run(t)
    return {"dtype": t.dtype.name, "shape": t.shape.as_list(), "value": value.tolist()}


def constants_of_array_likes(tf):
    """tf.constant / convert_to_tensor of each array-like: numpy's dtype is kept (float64
    stays float64, a bytearray is uint8) unless a dtype is asked for."""
    tf.reset_default_graph()
    labels = SeriesLike([233.4, 44.9, 282.6])
    out = {
        "series": _described(tf, tf.constant(labels)),
        "series_float32": _described(tf, tf.constant(labels, dtype=tf.float32)),
        "series_converted": _described(tf, tf.convert_to_tensor(labels)),
        "series_of_ints": _described(tf, tf.constant(SeriesLike(np.array([3, 4], np.int64)))),
        "interface": _described(tf, tf.constant(InterfaceOnly(np.array([[1, 2]], np.int16)))),
        "bytearray": _described(tf, tf.constant(bytearray(b"ab"))),
        "memoryview": _described(tf, tf.constant(memoryview(b"xyz"))),
        "array_array": _described(tf, tf.constant(array.array("d", [1.5, 2.5]))),
    }
    return out


def dataset_from_features_and_series(tf):
    """The crash course's input_fn: a dict of float64 columns and a Series of labels, sliced,
    batched and read once."""
    tf.reset_default_graph()
    Dataset = importlib.import_module(tf.__name__.split(".")[0] + ".python.data").Dataset
    features = {"total_rooms": np.array([5612.0, 7650.0, 720.0, 1501.0])}
    targets = SeriesLike([66.9, 80.1, 85.7, 73.4])
    ds = Dataset.from_tensor_slices((features, targets)).batch(3)
    feats, labels = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        f, l = sess.run([feats, labels])
    return {
        "types": [feats["total_rooms"].dtype.name, labels.dtype.name],
        "shapes": [feats["total_rooms"].shape.as_list(), labels.shape.as_list()],
        "batch": [f["total_rooms"].tolist(), l.tolist()],
    }


def tensorflow_python_data_names(tf):
    """What `from tensorflow.python.data import X` gives: tf.data's own classes and makers."""
    module = importlib.import_module(tf.__name__.split(".")[0] + ".python.data")
    names = [
        "Dataset",
        "FixedLengthRecordDataset",
        "Iterator",
        "TFRecordDataset",
        "TextLineDataset",
        "make_initializable_iterator",
        "make_one_shot_iterator",
    ]
    return {
        "same_as_tf_data": {n: getattr(module, n) is getattr(tf.data, n) for n in names},
        "experimental_has": sorted(
            n
            for n in ("AUTOTUNE", "CsvDataset", "make_csv_dataset", "unbatch")
            if hasattr(module.experimental, n)
        ),
    }


CASES = {
    "constants_of_array_likes": constants_of_array_likes,
    "dataset_from_features_and_series": dataset_from_features_and_series,
    "tensorflow_python_data_names": tensorflow_python_data_names,
}
