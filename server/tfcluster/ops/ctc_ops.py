"""CTC: tf.nn.ctc_loss (TF1's, sparse labels, blank = last class), ctc_loss_v2, the greedy
and beam-search decoders, collapse_repeated and ctc_unique_labels, as TF 1.15 builds them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, functional_ops, math_ops, sparse_ops
from tfcluster.ops.infer_util import merge_dim, shape_list, with_rank
from tfcluster.ops.op_util import Outputs, check_dtype, make_op

_CTC_FLOATS = (dtypes.float32, dtypes.float64)


def _time_batch_classes(inputs: Tensor, op: str) -> list[int | None]:
    dims = shape_list(with_rank(inputs.shape, 3, f"{op}/inputs"))
    assert dims is not None
    return dims


def _ctc_loss_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    logits, indices, values, seq_len = inputs
    time, batch, classes = _time_batch_classes(logits, "CTCLoss")
    idx = shape_list(with_rank(indices.shape, 2, "CTCLoss/labels_indices"))
    vals = shape_list(with_rank(values.shape, 1, "CTCLoss/labels_values"))
    lens = shape_list(with_rank(seq_len.shape, 1, "CTCLoss/sequence_length"))
    assert idx is not None and vals is not None and lens is not None
    merge_dim(idx[0], vals[0], "CTCLoss")
    batch = merge_dim(batch, lens[0], "CTCLoss")
    dtype = logits.dtype.base_dtype
    return [(dtype, TensorShape([batch])), (dtype, TensorShape([time, batch, classes]))]


def _greedy_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    logits, seq_len = inputs
    _, batch, _ = _time_batch_classes(logits, "CTCGreedyDecoder")
    lens = shape_list(with_rank(seq_len.shape, 1, "CTCGreedyDecoder/sequence_length"))
    assert lens is not None
    batch = merge_dim(batch, lens[0], "CTCGreedyDecoder")
    return [
        (dtypes.int64, TensorShape([None, 2])),
        (dtypes.int64, TensorShape([None])),
        (dtypes.int64, TensorShape([2])),
        (logits.dtype.base_dtype, TensorShape([batch, 1])),
    ]


def _beam_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    logits, seq_len = inputs
    _, batch, _ = _time_batch_classes(logits, "CTCBeamSearchDecoder")
    lens = shape_list(with_rank(seq_len.shape, 1, "CTCBeamSearchDecoder/sequence_length"))
    assert lens is not None
    batch = merge_dim(batch, lens[0], "CTCBeamSearchDecoder")
    paths = int(attrs["top_paths"])
    return (
        [(dtypes.int64, TensorShape([None, 2]))] * paths
        + [(dtypes.int64, TensorShape([None]))] * paths
        + [(dtypes.int64, TensorShape([2]))] * paths
        + [(logits.dtype.base_dtype, TensorShape([batch, paths]))]
    )


op_def_registry.register("CTCLoss", _ctc_loss_infer)
op_def_registry.register("CTCGreedyDecoder", _greedy_infer)
op_def_registry.register("CTCBeamSearchDecoder", _beam_infer)


def ctc_loss(
    labels: Any,
    inputs: Any = None,
    sequence_length: Any = None,
    preprocess_collapse_repeated: bool = False,
    ctc_merge_repeated: bool = True,
    ignore_longer_outputs_than_inputs: bool = False,
    time_major: bool = True,
    logits: Any = None,
) -> Tensor:
    """Negative log probability of each batch entry's label sequence (TF1's CTCLoss op)."""
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    if logits is not None and inputs is not None:
        raise ValueError("Cannot specify both 'inputs' and 'logits'")
    inputs = logits if logits is not None else inputs
    if not time_major:
        inputs = array_ops.transpose(inputs, [1, 0, 2])  # (B,T,N) => (T,B,N)
    loss, _ = _ctc_loss_op(
        inputs,
        labels.indices,
        labels.values,
        sequence_length,
        preprocess_collapse_repeated,
        ctc_merge_repeated,
        ignore_longer_outputs_than_inputs,
    )
    return loss


def _ctc_loss_op(
    inputs: Any,
    indices: Any,
    values: Any,
    sequence_length: Any,
    collapse: bool,
    merge: bool,
    ignore_longer: bool,
) -> tuple[Tensor, Tensor]:
    with name_scope(None, "CTCLoss", [inputs, indices, values, sequence_length]) as scope:
        x = convert_to_tensor(inputs, name="inputs")
        check_dtype(x, _CTC_FLOATS, "CTCLoss", "inputs")
        idx = convert_to_tensor(indices, dtype=dtypes.int64, name="labels_indices")
        vals = convert_to_tensor(values, dtype=dtypes.int32, name="labels_values")
        lens = convert_to_tensor(sequence_length, dtype=dtypes.int32, name="sequence_length")
        attrs = {
            "T": x.dtype.base_dtype,
            "preprocess_collapse_repeated": bool(collapse),
            "ctc_merge_repeated": bool(merge),
            "ignore_longer_outputs_than_inputs": bool(ignore_longer),
        }
        op = make_op("CTCLoss", [x, idx, vals, lens], attrs, name=scope)
    return op.outputs[0], op.outputs[1]


def ctc_greedy_decoder(
    inputs: Any, sequence_length: Any, merge_repeated: bool = True
) -> tuple[list[SparseTensor], Tensor]:
    """([decoded], neg_sum_logits): each frame's best class, blanks dropped (and repeats
    merged when merge_repeated)."""
    with name_scope(None, "CTCGreedyDecoder", [inputs, sequence_length]) as scope:
        x = convert_to_tensor(inputs, name="inputs")
        check_dtype(x, _CTC_FLOATS, "CTCGreedyDecoder", "inputs")
        lens = convert_to_tensor(sequence_length, dtype=dtypes.int32, name="sequence_length")
        attrs = {"T": x.dtype.base_dtype, "merge_repeated": bool(merge_repeated)}
        op = make_op("CTCGreedyDecoder", [x, lens], attrs, name=scope)
    ix, val, shape, log_prob = op.outputs
    return [SparseTensor(ix, val, shape)], log_prob


def ctc_beam_search_decoder(
    inputs: Any,
    sequence_length: Any,
    beam_width: int = 100,
    top_paths: int = 1,
    merge_repeated: bool = True,
) -> tuple[list[SparseTensor], Tensor]:
    """([decoded path j for j < top_paths], log probabilities [batch, top_paths])."""
    with name_scope(None, "CTCBeamSearchDecoder", [inputs, sequence_length]) as scope:
        x = convert_to_tensor(inputs, name="inputs")
        check_dtype(x, _CTC_FLOATS, "CTCBeamSearchDecoder", "inputs")
        lens = convert_to_tensor(sequence_length, dtype=dtypes.int32, name="sequence_length")
        if int(beam_width) < 1:
            raise ValueError(f"beam_width must be >= 1, got {beam_width}")
        if int(top_paths) < 1:
            raise ValueError(f"top_paths must be >= 1, got {top_paths}")
        attrs = {
            "T": x.dtype.base_dtype,
            "beam_width": int(beam_width),
            "top_paths": int(top_paths),
            "merge_repeated": bool(merge_repeated),
        }
        op = make_op("CTCBeamSearchDecoder", [x, lens], attrs, name=scope)
    n = int(top_paths)
    outs = op.outputs
    decoded = [SparseTensor(outs[j], outs[n + j], outs[2 * n + j]) for j in range(n)]
    return decoded, outs[3 * n]


def ctc_beam_search_decoder_v2(
    inputs: Any, sequence_length: Any, beam_width: int = 100, top_paths: int = 1
) -> tuple[list[SparseTensor], Tensor]:
    """The beam-search decoder without merging repeats (TF2's tf.nn.ctc_beam_search_decoder)."""
    return ctc_beam_search_decoder(
        inputs,
        sequence_length=sequence_length,
        beam_width=beam_width,
        top_paths=top_paths,
        merge_repeated=False,
    )


def _dim(tensor: Tensor, i: int) -> Any:
    """A dimension: static where known, else the dynamic one (TF's ctc_ops._get_dim)."""
    static = tensor.shape.as_list()[i] if tensor.shape.ndims is not None else None
    return static if static is not None else array_ops.shape(tensor)[i]


def ctc_loss_v2(
    labels: Any,
    logits: Any,
    label_length: Any,
    logit_length: Any,
    logits_time_major: bool = True,
    unique: Any = None,
    blank_index: int | None = None,
    name: str | None = None,
) -> Tensor:
    """TF2's CTC loss: dense padded labels with lengths (blank 0 by default) or sparse labels
    (blank_index required). Both run on the CTCLoss kernel with the blank class moved last;
    TF builds the dense case from ops (ctc_loss_dense) that compute the same values."""
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("blank_index must be given when using SparseTensor labels.")
        logits = convert_to_tensor(logits)
        classes = _dim(logits, 2)
        if blank_index < 0:
            blank_index += classes
        if blank_index != classes - 1:
            logits = array_ops.concat(
                [
                    logits[:, :, :blank_index],
                    logits[:, :, blank_index + 1 :],
                    logits[:, :, blank_index : blank_index + 1],
                ],
                axis=2,
            )
            labels = SparseTensor(
                labels.indices,
                array_ops.where(labels.values < blank_index, labels.values, labels.values - 1),
                labels.dense_shape,
            )
        return ctc_loss(
            labels=labels,
            inputs=logits,
            sequence_length=logit_length,
            time_major=logits_time_major,
        )
    if blank_index is None:
        blank_index = 0
    with name_scope(name, "ctc_loss_dense", [logits, labels, label_length, logit_length]):
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        label_length = convert_to_tensor(label_length, name="label_length")
        logit_length = convert_to_tensor(logit_length, name="logit_length")
        if not logits_time_major:
            logits = array_ops.transpose(logits, perm=[1, 0, 2])
        classes = _dim(logits, 2)
        if blank_index < 0:
            blank_index += classes
        if blank_index != classes - 1:
            logits = array_ops.concat(
                [
                    logits[:, :, :blank_index],
                    logits[:, :, blank_index + 1 :],
                    logits[:, :, blank_index : blank_index + 1],
                ],
                axis=2,
            )
            labels = array_ops.where(labels < blank_index, labels, labels - 1)
        sparse = _dense_labels_to_sparse(labels, label_length)
        loss, _ = _ctc_loss_op(
            logits, sparse.indices, sparse.values, logit_length, False, True, False
        )
        return loss + _softmax_beyond_length(logits, logit_length)


def _softmax_beyond_length(logits: Tensor, logit_length: Tensor) -> Tensor:
    """Zero, whose gradient is each frame's softmax past logit_length: TF's dense CTC
    gradient has those terms (CTCLoss's has zeros there), so the dense path adds them."""
    frames = _dim(logits, 0)
    past = math_ops.logical_not(
        array_ops.transpose(array_ops.sequence_mask(logit_length, maxlen=frames))
    )
    lse = math_ops.reduce_logsumexp(logits, axis=2)
    extra = math_ops.reduce_sum(array_ops.where(past, lse, array_ops.zeros_like(lse)), axis=0)
    return extra - array_ops.stop_gradient(extra)


def _dense_labels_to_sparse(dense: Tensor, length: Tensor) -> SparseTensor:
    """The first length[b] labels of each row as a SparseTensor (TF's dense_labels_to_sparse)."""
    flat_values = array_ops.reshape(dense, [-1])
    flat_indices = math_ops.range(array_ops.shape(flat_values, out_type=dtypes.int64)[0])
    mask = array_ops.sequence_mask(length, maxlen=array_ops.shape(dense)[1])
    flat_mask = array_ops.reshape(mask, [-1])
    indices = array_ops.expand_dims(array_ops.boolean_mask(flat_indices, flat_mask), 1)
    values = array_ops.boolean_mask(flat_values, flat_mask)
    sparse = SparseTensor(
        indices=indices,
        values=math_ops.cast(values, dtypes.int32),
        dense_shape=array_ops.shape(flat_values, out_type=dtypes.int64),
    )
    reshaped = sparse_ops.sparse_reshape(sparse, array_ops.shape(dense))
    max_length = math_ops.reduce_max(length)
    return SparseTensor(
        indices=reshaped.indices,
        values=reshaped.values,
        dense_shape=[
            math_ops.cast(reshaped.dense_shape[0], dtypes.int64),
            math_ops.cast(max_length, dtypes.int64),
        ],
    )


def collapse_repeated(
    labels: Any, seq_length: Any, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """(labels with runs of one label merged, zero-padded to the longest; new lengths)."""
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        label_mask = array_ops.concat(
            [
                array_ops.ones_like(labels[:, :1], dtypes.bool_),
                math_ops.not_equal(labels[:, 1:], labels[:, :-1]),
            ],
            axis=1,
        )
        maxlen = _dim(labels, 1)
        seq_mask = array_ops.sequence_mask(seq_length, maxlen=maxlen)
        label_mask = math_ops.logical_and(label_mask, seq_mask)
        new_seq_len = math_ops.reduce_sum(math_ops.cast(label_mask, dtypes.int32), axis=1)
        new_maxlen = math_ops.reduce_max(new_seq_len)
        idx_mask = array_ops.sequence_mask(new_seq_len, maxlen=new_maxlen)
        flat_labels = array_ops.reshape(labels, [-1])
        flat_label_mask = array_ops.reshape(label_mask, [-1])
        flat_idx_mask = array_ops.reshape(idx_mask, [-1])
        idx = math_ops.range(_dim(flat_idx_mask, 0))
        flat = array_ops.scatter_nd(
            indices=array_ops.expand_dims(array_ops.boolean_mask(idx, flat_idx_mask), axis=1),
            updates=array_ops.boolean_mask(flat_labels, flat_label_mask),
            shape=array_ops.shape(flat_idx_mask),
        )
        batch_size = _dim(labels, 0)
        new_shape = [batch_size, new_maxlen]
        return (
            array_ops.reshape(flat, new_shape),
            math_ops.cast(new_seq_len, seq_length.dtype),
        )


def ctc_unique_labels(labels: Any, name: str | None = None) -> Any:
    """(unique labels of each row zero-padded, int64; each label's index among them)."""
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x: Tensor) -> list[Tensor]:
            u = array_ops.unique(x)
            y = array_ops.pad(u.y, [[0, _dim(u.idx, 0) - _dim(u.y, 0)]])
            y = math_ops.cast(y, dtypes.int64)
            return [y, u.idx]

        return functional_ops.map_fn(_unique, labels, dtype=[dtypes.int64, dtypes.int32])


__all__: list[str] = []  # tf.nn names only (the face imports them by name)
