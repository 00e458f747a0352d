"""tensorflow.python.training.adagrad (`adagrad.AdagradOptimizer(0.1)`): the very objects tf.train
holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

AdagradOptimizer = face_function("train", "AdagradOptimizer")

__all__ = [
    "AdagradOptimizer",
]

__getattr__ = module_getattr("python.training.adagrad")
