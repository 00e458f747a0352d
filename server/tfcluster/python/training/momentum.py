"""tensorflow.python.training.momentum (`momentum.MomentumOptimizer(0.1, 0.9)`): the very objects
tf.train holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

MomentumOptimizer = face_function("train", "MomentumOptimizer")

__all__ = [
    "MomentumOptimizer",
]

__getattr__ = module_getattr("python.training.momentum")
