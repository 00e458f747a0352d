"""tensorflow.python.ops.rnn_cell_impl (`rnn_cell_impl.LSTMStateTuple`,
`rnn_cell_impl._zero_state_tensors`, `isinstance(cell, rnn_cell_impl.RNNCell)`): the cells of
tf.nn.rnn_cell, the very classes, and the module's helpers programs reach for."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.rnn.cells import (
    _BIAS_VARIABLE_NAME,
    _WEIGHTS_VARIABLE_NAME,
    BasicLSTMCell,
    BasicRNNCell,
    GRUCell,
    LayerRNNCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
    _hasattr,
    assert_like_rnncell,
    check_rnn_cell_input_dtypes,
    check_supported_dtypes,
    concat_shapes,
    zero_state_tensors,
)
from tfcluster.lib.rnn.wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper
from tfcluster.lib.rnn.wrappers import _RNNCellWrapper as _RNNCellWrapperV1
from tfcluster.python._private_module import module_getattr

ASSERT_LIKE_RNNCELL_ERROR_REGEXP = "is not an RNNCell"
_LSTMStateTuple = LSTMStateTuple.__bases__[0]
_check_rnn_cell_input_dtypes = check_rnn_cell_input_dtypes
_check_supported_dtypes = check_supported_dtypes


def _concat(prefix: Any, suffix: Any, static: bool = False) -> Any:
    return concat_shapes(prefix, suffix, static=static)


def _zero_state_tensors(state_size: Any, batch_size: Any, dtype: Any) -> Any:
    return zero_state_tensors(state_size, batch_size, dtype)


__getattr__ = module_getattr("python.ops.rnn_cell_impl")

__all__ = [
    "ASSERT_LIKE_RNNCELL_ERROR_REGEXP",
    "_BIAS_VARIABLE_NAME",
    "_WEIGHTS_VARIABLE_NAME",
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
    "_RNNCellWrapperV1",
    "_hasattr",
    "assert_like_rnncell",
]
