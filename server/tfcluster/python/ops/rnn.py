"""tensorflow.python.ops.rnn (`from tensorflow.python.ops import rnn` then
`rnn.dynamic_rnn(...)`): tf.nn's RNN drivers, the very functions tf.nn holds (a deprecated one
announces itself once through either path), and the module's helpers programs reach for
(`rnn._transpose_batch_time`)."""

from __future__ import annotations

from tfcluster.lib.rnn.rnn import (
    _best_effort_input_batch_size,
    _dynamic_rnn_loop,
    _infer_state_dtype,
    _maybe_tensor_shape_from_tensor,
    _reverse_seq,
    _rnn_step,
    _should_cache,
    _transpose_batch_time,
    static_state_saving_rnn,
)
from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr
from tfcluster.python.ops.rnn_cell_impl import _concat

bidirectional_dynamic_rnn = face_function("nn", "bidirectional_dynamic_rnn")
dynamic_rnn = face_function("nn", "dynamic_rnn")
raw_rnn = face_function("nn", "raw_rnn")
static_rnn = face_function("nn", "static_rnn")
static_bidirectional_rnn = face_function("nn", "static_bidirectional_rnn")

__getattr__ = module_getattr("python.ops.rnn")

__all__ = [
    "_best_effort_input_batch_size",
    "_concat",
    "_dynamic_rnn_loop",
    "_infer_state_dtype",
    "_maybe_tensor_shape_from_tensor",
    "_reverse_seq",
    "_rnn_step",
    "_should_cache",
    "_transpose_batch_time",
    "bidirectional_dynamic_rnn",
    "dynamic_rnn",
    "raw_rnn",
    "static_bidirectional_rnn",
    "static_rnn",
    "static_state_saving_rnn",
]
