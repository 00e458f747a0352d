"""tensorflow.python.training.rmsprop (`rmsprop.RMSPropOptimizer(1e-3)`): the very objects tf.train
holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

RMSPropOptimizer = face_function("train", "RMSPropOptimizer")

__all__ = [
    "RMSPropOptimizer",
]

__getattr__ = module_getattr("python.training.rmsprop")
