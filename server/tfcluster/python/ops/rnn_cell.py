"""tensorflow.python.ops.rnn_cell, the path TF1 programs from before 1.0 import the cells by
(`from tensorflow.python.ops import rnn, rnn_cell`): in TF 1.15 a star import of
rnn_cell_impl, so its public names, tf.nn.rnn_cell's very classes."""

from __future__ import annotations

from tfcluster.python._private_module import module_getattr
from tfcluster.python.ops import rnn_cell_impl as _impl

__all__ = [name for name in _impl.__all__ if not name.startswith("_")]
globals().update({name: getattr(_impl, name) for name in __all__})

__getattr__ = module_getattr("python.ops.rnn_cell")
