"""tf.keras.backend's CTC functions (TF 1.15): dense Keras labels to the SparseTensor
tf.nn.ctc_loss takes, the per-sample CTC cost of softmax outputs (batch-major, as Keras models
give them), and greedy/beam decoding back to dense label rows padded with -1."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.lib.keras.backend import epsilon
from tfcluster.ops import array_ops, ctc_ops, math_ops, sparse_ops


def ctc_label_dense_to_sparse(labels: Any, label_lengths: Any) -> SparseTensor:
    """Row b's first label_lengths[b] labels as a SparseTensor of labels' dense shape
    (indices int64, row-major, as TF orders them)."""
    labels = convert_to_tensor(labels)
    label_lengths = convert_to_tensor(label_lengths)
    label_shape = array_ops.shape(labels)
    positions = math_ops.range(label_shape[1])
    # Position t of row b is a label while t < label_lengths[b].
    in_label = array_ops.expand_dims(positions, 0) < array_ops.expand_dims(
        math_ops.cast(label_lengths, label_shape.dtype), 1
    )
    indices = array_ops.where(in_label)
    return SparseTensor(
        indices,
        array_ops.gather_nd(labels, indices),
        math_ops.cast(label_shape, dtypes.int64),
    )


def ctc_batch_cost(y_true: Any, y_pred: Any, input_length: Any, label_length: Any) -> Tensor:
    """The CTC loss of each sample, shape (batch, 1). y_pred: (batch, time, classes) softmax
    outputs with the blank as the last class; input_length, label_length: (batch, 1)."""
    label_length = math_ops.cast(array_ops.squeeze(label_length, axis=-1), dtypes.int32)
    input_length = math_ops.cast(array_ops.squeeze(input_length, axis=-1), dtypes.int32)
    sparse_labels = math_ops.cast(ctc_label_dense_to_sparse(y_true, label_length), dtypes.int32)
    log_probs = math_ops.log(array_ops.transpose(y_pred, perm=[1, 0, 2]) + epsilon())
    loss = ctc_ops.ctc_loss(inputs=log_probs, labels=sparse_labels, sequence_length=input_length)
    return array_ops.expand_dims(loss, 1)


def ctc_decode(
    y_pred: Any,
    input_length: Any,
    greedy: bool = True,
    beam_width: int = 100,
    top_paths: int = 1,
) -> tuple[list[Tensor], Tensor]:
    """([top_paths dense (batch, max decoded length) label rows, -1 past each row's end],
    log probabilities (batch, top_paths)) of softmax outputs y_pred (batch, time, classes)."""
    log_probs = math_ops.log(array_ops.transpose(y_pred, perm=[1, 0, 2]) + epsilon())
    input_length = math_ops.cast(input_length, dtypes.int32)
    if greedy:
        decoded, log_prob = ctc_ops.ctc_greedy_decoder(
            inputs=log_probs, sequence_length=input_length
        )
    else:
        decoded, log_prob = ctc_ops.ctc_beam_search_decoder(
            inputs=log_probs,
            sequence_length=input_length,
            beam_width=beam_width,
            top_paths=top_paths,
        )
    dense = [
        sparse_ops.sparse_to_dense(st.indices, st.dense_shape, st.values, default_value=-1)
        for st in decoded
    ]
    return dense, log_prob
