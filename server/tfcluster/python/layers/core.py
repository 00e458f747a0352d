"""tensorflow.python.layers.core (`from tensorflow.python.layers import core as layers_core`
then `layers_core.Dense(...)`): tf.layers' core layers, the very classes and functions."""

from __future__ import annotations

from tfcluster.lib.layers.core import Dense, Dropout, Flatten, FullyConnected
from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

dense = face_function("layers", "dense")
dropout = face_function("layers", "dropout")
flatten = face_function("layers", "flatten")
fully_connected = dense

__getattr__ = module_getattr("python.layers.core")

__all__ = [
    "Dense",
    "Dropout",
    "Flatten",
    "FullyConnected",
    "dense",
    "dropout",
    "flatten",
    "fully_connected",
]
