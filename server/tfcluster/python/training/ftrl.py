"""tensorflow.python.training.ftrl (`ftrl.FtrlOptimizer(0.1)`): the very objects tf.train holds;
TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

FtrlOptimizer = face_function("train", "FtrlOptimizer")

__all__ = [
    "FtrlOptimizer",
]

__getattr__ = module_getattr("python.training.ftrl")
