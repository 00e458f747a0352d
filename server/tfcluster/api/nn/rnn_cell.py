"""tf.nn.rnn_cell"""

from tfcluster.api import _unimplemented
from tfcluster.lib.rnn.cells import (  # noqa: F401
    BasicLSTMCell,
    BasicRNNCell,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)
from tfcluster.lib.rnn.wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper  # noqa: F401

__getattr__ = _unimplemented.module_getattr("nn.rnn_cell")
