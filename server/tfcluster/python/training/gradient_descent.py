"""tensorflow.python.training.gradient_descent (`gradient_descent.GradientDescentOptimizer(0.1)`):
the very objects tf.train holds; TF's other names raise UnimplementedError on use."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

GradientDescentOptimizer = face_function("train", "GradientDescentOptimizer")

__all__ = [
    "GradientDescentOptimizer",
]

__getattr__ = module_getattr("python.training.gradient_descent")
