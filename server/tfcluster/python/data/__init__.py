"""tensorflow.python.data: the tf.data classes and iterator makers, as TF 1.15's package
exports them (`from tensorflow.python.data import Dataset`, as Google's ML Crash Course
input functions write it)."""

from tfcluster.api.data import experimental
from tfcluster.lib.data.dataset import Dataset
from tfcluster.lib.data.iterator import (
    Iterator,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from tfcluster.lib.data.readers import (
    FixedLengthRecordDataset,
    TextLineDataset,
    TFRecordDataset,
)

__all__ = [
    "Dataset",
    "FixedLengthRecordDataset",
    "Iterator",
    "TFRecordDataset",
    "TextLineDataset",
    "experimental",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
