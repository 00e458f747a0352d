"""tensorflow.python.ops.rnn_cell, the path TF1 programs from before 1.0 import the cells by
(`from tensorflow.python.ops import rnn, rnn_cell`): in TF 1.15 a star import of
rnn_cell_impl, so its public names, tf.nn.rnn_cell's very classes."""

from __future__ import annotations

from tfcluster.python._private_module import module_getattr
from tfcluster.python.ops.rnn_cell_impl import (
    ASSERT_LIKE_RNNCELL_ERROR_REGEXP,
    BasicLSTMCell,
    BasicRNNCell,
    DeviceWrapper,
    DropoutWrapper,
    GRUCell,
    LayerRNNCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    ResidualWrapper,
    RNNCell,
    assert_like_rnncell,
)

__all__ = [
    "ASSERT_LIKE_RNNCELL_ERROR_REGEXP",
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "LayerRNNCell",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
    "assert_like_rnncell",
]

__getattr__ = module_getattr("python.ops.rnn_cell")
