"""CTC loss (CTCLoss) and the greedy decoder (CTCGreedyDecoder), as TF's ctc_loss_op and
ctc_decoder_ops compute them: the blank is the last class, logits are normalised per frame
with a softmax.

The loss runs Graves' forward-backward recursion in log space, one frame at a time over the
whole batch at once ([batch, 2L+1] arrays), so the only Python loop is over frames."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_array, invalid, shape_str, typed
from tfcluster.kernels.registry import CPU_ONLY, kernel

_NEG_INF = -np.inf


def _check_inputs(inputs: Any, seq_len: np.ndarray) -> tuple[int, int, int]:
    if inputs.ndim != 3:
        raise invalid("inputs is not a 3-Tensor")
    if seq_len.ndim != 1:
        raise invalid("sequence_length is not a vector")
    max_time, batch, classes = (int(d) for d in inputs.shape)
    if seq_len.shape[0] != batch:
        raise invalid(
            f"len(sequence_length) != batch_size.  len(sequence_length):  {seq_len.shape[0]} "
            f"batch_size: {batch}"
        )
    for b, length in enumerate(seq_len.tolist()):
        if length > max_time:
            raise invalid(f"sequence_length({b}) <= {max_time}")
    return max_time, batch, classes


def _labels_by_batch(indices: np.ndarray, values: np.ndarray, batch: int) -> list[list[int]]:
    """Each batch entry's label sequence from the SparseTensor (indices in row-major order)."""
    if indices.ndim != 2:
        raise invalid("labels_indices is not a matrix")
    if values.ndim != 1:
        raise invalid("labels_values is not a vector")
    if indices.shape[0] != values.shape[0]:
        raise invalid(
            "labels_indices and labels_values must contain the same number of rows, but saw "
            f"shapes: {shape_str(indices.shape)} vs. {shape_str(values.shape)}"
        )
    if indices.shape[1] < 2 and indices.shape[0]:
        raise invalid("labels_indices must have two columns: [batch, time]")
    for i in range(1, indices.shape[0]):
        if tuple(indices[i, :2]) <= tuple(indices[i - 1, :2]):
            order = (
                "repeated" if tuple(indices[i, :2]) == tuple(indices[i - 1, :2]) else "out of order"
            )
            raise invalid(
                f"label SparseTensor is not valid: indices[{i}] = "
                f"[{indices[i, 0]},{indices[i, 1]}] is {order}. Many sparse ops require sorted "
                "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
            )
    labels: list[list[int]] = [[] for _ in range(batch)]
    for (b, _), v in zip(indices[:, :2].tolist(), values.tolist()):
        if not 0 <= b < batch:
            raise invalid(f"labels batch index must be between 0 and {batch - 1}, got {b}")
        labels[b].append(int(v))
    return labels


def _collapse(seq: list[int]) -> list[int]:
    return [v for i, v in enumerate(seq) if i == 0 or v != seq[i - 1]]


def _drop_trailing_nulls(seq: list[int], raw: list[int], classes: int, b: int) -> list[int]:
    """TF reads a label >= the blank as the end of the sequence: what follows must be such
    labels too."""
    null = next((i for i, v in enumerate(seq) if v >= classes - 1), len(seq))
    if any(v < classes - 1 for v in seq[null:]):
        raise invalid(
            "Saw a non-null label (index >= num_classes - 1) following a null label, batch: "
            f"{b} num_classes: {classes} labels: {','.join(str(v) for v in raw)} labels seen "
            f"so far: {','.join(str(v) for v in seq[:null])}"
        )
    return seq[:null]


def _log_softmax(xp: Any, x: Any) -> Any:
    shifted = x - xp.max(x, axis=-1, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))


def _shift(xp: Any, a: Any, k: int) -> Any:
    """a moved k places right along the last axis, -inf filling the gap."""
    out = xp.full(a.shape, _NEG_INF, dtype=a.dtype)
    out[..., k:] = a[..., :-k]
    return out


def _shift_left(xp: Any, a: Any, k: int) -> Any:
    out = xp.full(a.shape, _NEG_INF, dtype=a.dtype)
    out[..., :-k] = a[..., k:]
    return out


def ctc_loss_and_gradient(
    xp: Any,
    inputs: Any,
    labels: list[list[int]],
    seq_len: np.ndarray,
    merge_repeated: bool,
) -> tuple[Any, Any]:
    """(loss [batch], d loss / d logits [time, batch, classes]) in float64."""
    max_time, batch, classes = (int(d) for d in inputs.shape)
    blank = classes - 1
    width = 2 * max((len(seq) for seq in labels), default=0) + 1
    # l' = blank, l1, blank, l2, ..., blank; padded with blank (those states stay -inf).
    lprime = np.full((batch, width), blank, dtype=np.int64)
    states = np.zeros(batch, dtype=np.int64)
    for b, seq in enumerate(labels):
        lprime[b, 1 : 2 * len(seq) : 2] = seq
        states[b] = 2 * len(seq) + 1
    valid = np.arange(width)[None, :] < states[:, None]
    is_blank = lprime == blank
    stay = valid & (is_blank | merge_repeated)
    prev2 = np.concatenate([np.full((batch, 2), -1), lprime], axis=1)[:, :width]
    skip = valid & ~is_blank & (np.arange(width)[None, :] >= 2)
    if merge_repeated:
        skip &= lprime != prev2
    stay_x, skip_x, valid_x = (xp.asarray(m) for m in (stay, skip, valid))
    lens = xp.asarray(seq_len)

    # The softmax over classes in the input's precision (as TF); the recursions over the few
    # label states in float64.
    logp = _log_softmax(xp, xp.asarray(inputs))
    index = xp.broadcast_to(xp.asarray(lprime)[None], (max_time, batch, width))
    lp = xp.take_along_axis(logp, index, axis=2).astype(xp.float64)  # [time, batch, width]
    lp = xp.where(valid_x[None], lp, _NEG_INF)

    alpha = xp.full((max_time, batch, width), _NEG_INF)
    if max_time:
        start = xp.full((batch, width), _NEG_INF)
        start[:, :2] = lp[0, :, : min(2, width)]
        alpha[0] = start
    for t in range(1, max_time):
        prev = alpha[t - 1]
        acc = xp.where(stay_x, prev, _NEG_INF)
        acc = xp.logaddexp(acc, _shift(xp, prev, 1))
        if width > 2:
            acc = xp.logaddexp(acc, xp.where(skip_x, _shift(xp, prev, 2), _NEG_INF))
        alpha[t] = acc + lp[t]

    beta = xp.full((max_time, batch, width), _NEG_INF)
    last = np.arange(width)[None, :] >= (states[:, None] - 2)
    end = xp.where(xp.asarray(last & valid), 0.0, _NEG_INF)
    # Backwards, u -> u+2 is allowed when l'[u] is not blank and (merging) differs from
    # l'[u+2]: TF's test, which differs from the forward one where a label equals the blank.
    next2 = np.concatenate([lprime, np.full((batch, 2), -1)], axis=1)[:, 2:]
    skip_back = valid & ~is_blank & (np.arange(width)[None, :] + 2 < states[:, None])
    if merge_repeated:
        skip_back &= lprime != next2
    skip_next = xp.asarray(skip_back)
    for t in range(max_time - 1, -1, -1):
        if t + 1 < max_time:
            nxt = beta[t + 1] + lp[t + 1]
            acc = xp.where(stay_x, nxt, _NEG_INF)
            acc = xp.logaddexp(acc, _shift_left(xp, nxt, 1))
            if width > 2:
                acc = xp.logaddexp(acc, xp.where(skip_next, _shift_left(xp, nxt, 2), _NEG_INF))
            acc = xp.where(valid_x, acc, _NEG_INF)
        else:
            acc = xp.full((batch, width), _NEG_INF)
        here = (lens == t + 1)[:, None]
        after = (lens <= t)[:, None]
        beta[t] = xp.where(here, end, xp.where(after, _NEG_INF, acc))

    both = alpha + beta
    if max_time:
        top = xp.max(both[0], axis=1, keepdims=True)
        safe = xp.where(xp.isfinite(top), top, 0.0)
        log_pzx = xp.log(xp.sum(xp.exp(both[0] - safe), axis=1)) + safe[:, 0]
    else:
        log_pzx = xp.full((batch,), _NEG_INF)
    # Each class's share of the paths through each frame: sum over the states labelled l.
    found = xp.isfinite(log_pzx)
    share = xp.exp(both - xp.where(found, log_pzx, 0.0)[None, :, None])
    # Summed into each state's class (bincount: no [batch, states, classes] one-hot, which a
    # large vocabulary would make huge); padded states, frames past a sequence and entries
    # with no valid path add nothing.
    in_seq = xp.arange(max_time)[:, None] < lens[None, :]  # [time, batch]
    keep = valid_x[None] & found[None, :, None] & in_seq[..., None]
    share = xp.where(keep, share, 0.0)
    slot = (np.arange(max_time)[:, None, None] * batch + np.arange(batch)[None, :, None]) * classes
    flat = xp.asarray((slot + lprime[None]).reshape(-1))
    negative = xp.bincount(flat, weights=share.reshape(-1), minlength=max_time * batch * classes)
    y = xp.exp(logp) * in_seq[..., None].astype(logp.dtype)
    grad = y - negative.reshape(max_time, batch, classes).astype(logp.dtype)
    return -log_pzx, grad


@kernel("CTCLoss")
def ctc_loss(node: Any, xp: Any) -> Compute:
    collapse = bool(node.attrs.get("preprocess_collapse_repeated", False))
    merge = bool(node.attrs.get("ctc_merge_repeated", True))
    ignore_longer = bool(node.attrs.get("ignore_longer_outputs_than_inputs", False))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        inputs = xp.asarray(ins[0])
        indices, values, seq_len = (host_array(v) for v in ins[1:])
        _, batch, classes = _check_inputs(inputs, seq_len)
        if batch == 0:
            raise invalid("batch_size must not be 0")
        labels = _labels_by_batch(indices, values, batch)
        skipped = np.zeros(batch, dtype=bool)
        for b, raw in enumerate(labels):
            seq = raw
            if collapse:
                labels[b] = seq = _collapse(seq)
            if not seq:
                raise invalid(f"Labels length is zero in batch {b}")
            if min(seq) < 0:
                raise invalid(
                    f"All labels must be nonnegative integers, batch: {b} labels: "
                    + ",".join(str(v) for v in seq)
                )
            labels[b] = seq = _drop_trailing_nulls(seq, raw, classes, b)
            if len(seq) > int(seq_len[b]):
                if not ignore_longer:
                    raise invalid(
                        "Not enough time for target transition sequence (required: "
                        f"{len(seq)}, available: {int(seq_len[b])}){b}You can turn this error "
                        "into a warning by using the flag ignore_longer_outputs_than_inputs"
                    )
                skipped[b] = True
        loss, grad = ctc_loss_and_gradient(xp, inputs, labels, seq_len, merge)
        if skipped.any():
            keep = xp.asarray(~skipped)
            loss = xp.where(keep, loss, 0.0)
            grad = xp.where(keep[None, :, None], grad, 0.0)
        return cast(loss), cast(grad)

    return compute


@kernel("CTCGreedyDecoder", devices=CPU_ONLY)
def ctc_greedy_decoder(node: Any, xp: Any) -> Compute:
    merge = bool(node.attrs.get("merge_repeated", False))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        inputs = host_array(ins[0])
        seq_len = host_array(ins[1])
        max_time, batch, classes = _check_inputs(inputs, seq_len)
        blank = classes - 1
        best = np.argmax(inputs, axis=2) if classes else np.zeros((max_time, batch), np.int64)
        top = np.max(inputs, axis=2) if classes else np.zeros((max_time, batch))
        in_seq = np.arange(max_time)[:, None] < seq_len[None, :]
        log_prob = -np.sum(np.where(in_seq, top, 0), axis=0, dtype=np.float64)
        # A frame emits its class unless blank, or (merging) the same as the frame before.
        previous = np.concatenate([np.full((1, batch), -1), best[:-1]], axis=0)
        emit = in_seq & (best != blank)
        if merge:
            emit &= best != previous
        rows, times = np.nonzero(emit.T)  # batch-major, frames in order
        decoded = best.T[rows, times]
        counts = np.bincount(rows, minlength=batch)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        position = np.arange(rows.shape[0]) - starts[rows]
        indices = np.stack([rows, position], axis=1).astype(np.int64).reshape(-1, 2)
        shape = np.array([batch, counts.max() if batch else 0], dtype=np.int64)
        return (
            indices,
            decoded.astype(np.int64),
            shape,
            cast(xp.asarray(log_prob.reshape(batch, 1))),
        )

    return compute


@kernel("PreventGradient", keep_inputs=True)
def prevent_gradient(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> Any:
        return ins

    return compute
