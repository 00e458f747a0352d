"""tensorflow.python.summary.summary_iterator (`summary_iterator.summary_iterator(path)`): the very
objects tf.train holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

summary_iterator = face_function("train", "summary_iterator")

__all__ = [
    "summary_iterator",
]

__getattr__ = module_getattr("python.summary.summary_iterator")
