"""tensorflow.python.training.adadelta (`adadelta.AdadeltaOptimizer()`): the very objects tf.train
holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

AdadeltaOptimizer = face_function("train", "AdadeltaOptimizer")

__all__ = [
    "AdadeltaOptimizer",
]

__getattr__ = module_getattr("python.training.adadelta")
