"""SdcaOptimizer / SdcaOptimizerV2 (one pass of stochastic dual coordinate ascent over a
mini-batch), SdcaShrinkL1 (the L1 proximal step on weight variables) and SdcaFprint (the
128-bit farmhash fingerprint of example ids, as two int64): host kernels with the semantics
of TF 1.15's sdca_ops.cc.

One SDCA pass visits every example once (in a random order, or in adaptive sampling's order),
updates its dual variable by the loss's closed form or Newton steps, and accumulates the
primal weight change the new dual implies in the returned deltas. num_inner_iterations is
accepted and, as in TF 1.15, does not change anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import farmhash
import numpy as np

from tfcluster.kernels import in_place
from tfcluster.kernels.common import Compute, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.sdca_losses import LossUpdater, loss_updater
from tfcluster.kernels.state import locked

_U64 = 1 << 64


@dataclass
class _Options:
    loss: LossUpdater
    adaptive: bool
    num_sparse: int
    num_sparse_with_values: int
    num_dense: int
    l1: float
    l2: float
    partitions: int

    @property
    def shrinkage(self) -> float:
        return self.l1 / self.l2


def _options(node: Any) -> _Options:
    a = node.attrs
    adaptive = a.get("adaptive", a.get("adaptative", False))
    opts = _Options(
        loss=loss_updater(_text(a["loss_type"])),
        adaptive=bool(adaptive),
        num_sparse=int(a.get("num_sparse_features", 0)),
        num_sparse_with_values=int(a.get("num_sparse_features_with_values", 0)),
        num_dense=int(a.get("num_dense_features", 0)),
        # The attrs are float32 in TF's kernel.
        l1=float(np.float32(a["l1"])),
        l2=float(np.float32(a["l2"])),
        partitions=int(a.get("num_loss_partitions", 1)),
    )
    if opts.num_sparse + opts.num_dense <= 0:
        raise invalid("Requires at least one feature to train.")
    return opts


def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _shrink(w: np.ndarray, shrinkage: float) -> np.ndarray:
    """The proximal L1 step sign(w) * max(|w| - l1/l2, 0), in float32 as TF's Eigen code."""
    s = np.float32(shrinkage)
    return (np.sign(w) * np.maximum(np.abs(w) - s, np.float32(0))).astype(np.float32)


@dataclass
class _Example:
    weight: float
    label: float
    # per sparse group: positions in its weight vector, and the feature values (or None: 1.0)
    sparse: list[tuple[np.ndarray, np.ndarray | None]] = field(default_factory=list)
    squared_norm: float = 0.0


class _Model:
    """Nominal weights (the inputs) and the deltas this pass accumulates, per feature group."""

    def __init__(self, sparse_indices: list[Any], sparse_w: list[Any], dense_w: list[Any]) -> None:
        self.sparse_shapes = [np.shape(w) for w in sparse_w]
        self.dense_shapes = [np.shape(w) for w in dense_w]
        self.sparse_nominal = [np.asarray(w, np.float32).reshape(-1) for w in sparse_w]
        self.sparse_delta = [np.zeros_like(w) for w in self.sparse_nominal]
        self.sparse_ids: list[dict[int, int]] = []
        for idx in sparse_indices:
            ids: dict[int, int] = {}
            for pos, i in enumerate(np.asarray(idx).reshape(-1).tolist()):
                ids[int(i)] = pos  # a repeated index maps to its last position, as TF's map
            self.sparse_ids.append(ids)
        self.dense_nominal = [np.asarray(w, np.float32).reshape(-1) for w in dense_w]
        self.dense_delta = [np.zeros_like(w) for w in self.dense_nominal]


def _examples(opts: _Options, ins: list[Any], model: _Model) -> tuple[list[_Example], list[Any]]:
    s, sv, d = opts.num_sparse, opts.num_sparse_with_values, opts.num_dense
    pos = 0
    ex_idx, pos = ins[pos : pos + s], pos + s
    feat_idx, pos = ins[pos : pos + s], pos + s
    feat_val, pos = ins[pos : pos + sv], pos + sv
    dense, pos = ins[pos : pos + d], pos + d
    weights = np.asarray(ins[pos], np.float32).reshape(-1)
    labels = np.asarray(ins[pos + 1], np.float32).reshape(-1)
    n = weights.size
    # TF 1.15 reads the first n labels (it does not check for more).
    if labels.size < n:
        raise invalid(f"Expected {n} example labels but got {labels.size}")
    for i, x in enumerate(dense):
        if np.ndim(x) != 2:
            raise invalid(f"Dense features at index {i} must be rank 2 but is rank {np.ndim(x)}")
    examples = [_Example(float(weights[e]), float(labels[e])) for e in range(n)]
    for j in range(s):
        _sparse_group(j, ex_idx[j], feat_idx[j], feat_val[j] if j < sv else None, model, examples)
    dense_rows = []
    for i, x in enumerate(dense):
        x = np.asarray(x, np.float32)
        if x.shape[1] > model.dense_nominal[i].size:
            raise invalid(f"More dense features than we have parameters for: {x.shape[1]}")
        if x.shape[0] < n:
            raise invalid(f"Dense features at index {i} have {x.shape[0]} rows for {n} examples")
        dense_rows.append(x)
    # Each dense group's squared row norms in float32 (as TF's Eigen sums), all rows at once.
    dense_norms = [
        np.asarray(np.sum(np.square(x[:n]), axis=1, dtype=np.float32)) for x in dense_rows
    ]
    for e, ex in enumerate(examples):
        norm = 0.0
        for positions, values in ex.sparse:
            norm += float(positions.size) if values is None else float(np.dot(values, values))
        for group in dense_norms:
            norm += float(group[e])
        ex.squared_norm = norm
    return examples, dense_rows


def _sparse_group(
    j: int, ex_idx: Any, feat_idx: Any, values: Any, model: _Model, examples: list[_Example]
) -> None:
    """Group j's features of each example. TF reads the example indices as runs in example
    order (an example whose run is out of order gets no features of this group); it checks
    every feature index is among the group's weights before it checks for duplicates."""
    eidx = np.asarray(ex_idx, np.int64).reshape(-1)
    fidx = np.asarray(feat_idx, np.int64).reshape(-1)
    vals = None if values is None else np.asarray(values, np.float64).reshape(-1)
    if eidx.size != fidx.size:
        raise invalid(
            f"Found mismatched example_indices and feature_indices [{_vec(eidx)}] vs [{_vec(fidx)}]"
        )
    bounds = _runs(eidx, len(examples))
    used = fidx[bounds[0][0] : bounds[-1][1]] if bounds else fidx[:0]
    positions = _positions(model.sparse_ids[j], used)
    offset = bounds[0][0] if bounds else 0
    for (start, end), ex in zip(bounds, examples):
        mine = positions[start - offset : end - offset]
        if mine.size > 1 and np.unique(mine).size != mine.size:
            raise invalid("Duplicate index in sparse vector.")
        ex.sparse.append((mine, None if vals is None else vals[start:end]))


def _runs(eidx: np.ndarray, n: int) -> list[tuple[int, int]]:
    """[start, end) of each example's run of entries, as TF walks them."""
    if eidx.size == 0 or (eidx[0] >= 0 and bool(np.all(eidx[1:] >= eidx[:-1]))):
        starts = np.searchsorted(eidx, np.arange(n), side="left")
        ends = np.searchsorted(eidx, np.arange(n), side="right")
        return list(zip(starts.tolist(), ends.tolist()))
    out: list[tuple[int, int]] = []
    end = 0
    for e in range(n):
        start = end
        while end < eidx.size and eidx[end] == e:
            end += 1
        out.append((start, end))
    # Past a broken run every later example is empty: its start stays where the walk stopped.
    return out


def _positions(ids: dict[int, int], features: np.ndarray) -> np.ndarray:
    """Each feature index's position among the group's weights; one that is not there is an
    error naming the first such index."""
    if not features.size:
        return np.zeros(0, np.int64)
    if not ids:
        raise invalid(f"Found sparse feature indices out of valid range: {int(features[0])}")
    keys = np.fromiter(ids.keys(), np.int64, len(ids))
    order = np.argsort(keys)
    keys, pos = keys[order], np.fromiter(ids.values(), np.int64, len(ids))[order]
    at = np.minimum(np.searchsorted(keys, features), keys.size - 1)
    found = keys[at] == features
    if not np.all(found):
        bad = int(features[np.argmin(found)])
        raise invalid(f"Found sparse feature indices out of valid range: {bad}")
    return pos[at]


def _vec(v: np.ndarray) -> str:
    return " ".join(str(x) for x in v[:10].tolist()) + ("..." if v.size > 10 else "")


def _wx(
    opts: _Options, model: _Model, ex: _Example, dense_rows: list[np.ndarray], e: int
) -> tuple[float, float]:
    """(w.x with this pass's deltas, w.x with the nominal weights), both L1-shrunk."""
    wx = prev = 0.0
    shrink = opts.shrinkage
    partitions = np.float32(opts.partitions)
    for j, (positions, values) in enumerate(ex.sparse):
        if not positions.size:
            continue
        nominal = model.sparse_nominal[j][positions]
        current = nominal + model.sparse_delta[j][positions] * partitions
        if shrink:
            nominal, current = _shrink64(nominal, shrink), _shrink64(current, shrink)
        if values is None:
            wx += float(np.sum(current, dtype=np.float64))
            prev += float(np.sum(nominal, dtype=np.float64))
        else:
            wx += float(np.dot(values, current))
            prev += float(np.dot(values, nominal))
    for j, x in enumerate(dense_rows):
        row = x[e]
        nominal = model.dense_nominal[j][: row.size]
        current = nominal + model.dense_delta[j][: row.size] * partitions
        if shrink:
            nominal, current = _shrink(nominal, shrink), _shrink(current, shrink)
        # float32 dot products, as TF's Eigen sums
        prev += float(np.dot(row, nominal))
        wx += float(np.dot(row, current))
    return wx, prev


def _shrink64(w: np.ndarray, shrinkage: float) -> np.ndarray:
    w64 = w.astype(np.float64)
    return np.sign(w64) * np.maximum(np.abs(w64) - shrinkage, 0.0)


def _order(
    opts: _Options, model: _Model, examples: list[_Example], dense_rows: list[Any], state: Any
) -> list[int]:
    n = len(examples)
    rng = np.random.default_rng()
    if not opts.adaptive:
        return [int(i) for i in rng.permutation(n)]
    # Adaptive sampling: examples drawn by how far their dual is from optimal, a drawn
    # example's chance divided by 10 per draw; as TF 1.15, slots left when the draws stop
    # visit example 0 (TF's fill of the unseen examples writes its counts, not its order).
    probs = np.zeros(n)
    for e, ex in enumerate(examples):
        try:
            label = opts.loss.convert_label(ex.label)
        except Exception:
            label = ex.label
        wx, _ = _wx(opts, model, ex, dense_rows, e)
        kappa = float(state[e, 0]) + opts.loss.primal_derivative(wx, label, 1.0)
        smooth = opts.l2 * opts.loss.smoothness
        probs[e] = ex.weight * np.sqrt(ex.squared_norm + smooth) * abs(kappa)
    total = probs.sum()
    p = probs / total if total > 0 and np.isfinite(total) else np.full(n, 1.0 / max(n, 1))
    counts = np.zeros(n, np.int64)
    order = [0] * n
    filled = retries = 0
    while filled < n and retries < n:
        picked = int(rng.choice(n, p=p))
        if rng.random() > 0.1 ** counts[picked]:
            retries += 1
            continue
        counts[picked] += 1
        order[filled] = picked
        filled += 1
    return order


def _sdca_pass(opts: _Options, ins: list[Any]) -> tuple[Any, ...]:
    s, d = opts.num_sparse, opts.num_dense
    base = 2 * s + opts.num_sparse_with_values + d + 2
    sparse_indices = ins[base : base + s]
    sparse_w = ins[base + s : base + 2 * s]
    dense_w = ins[base + 2 * s : base + 2 * s + d]
    state_in = ins[base + 2 * s + d]
    model = _Model(sparse_indices, sparse_w, dense_w)
    examples, dense_rows = _examples(opts, ins, model)
    n = len(examples)
    if np.ndim(state_in) != 2:
        raise invalid(f"example_state_data must be rank 2 but is rank {np.ndim(state_in)}")
    if tuple(np.shape(state_in)) != (n, 4):
        raise invalid(
            f"Expected shape {shape_str([n, 4])} for example_state_data, got "
            f"{shape_str(np.shape(state_in))}"
        )
    state = np.array(state_in, np.float32)
    loss = opts.loss
    for e in _order(opts, model, examples, dense_rows, state):
        ex = examples[e]
        dual = float(state[e, 0])
        label = loss.convert_label(ex.label)
        wx, prev = _wx(opts, model, ex, dense_rows, e)
        norm = ex.squared_norm / opts.l2
        new_dual = loss.updated_dual(opts.partitions, label, ex.weight, dual, wx, norm)
        step = (new_dual - dual) * ex.weight / opts.l2
        for j, (positions, values) in enumerate(ex.sparse):
            if positions.size:
                v = np.ones(positions.size) if values is None else values
                delta = model.sparse_delta[j]
                delta[positions] = (delta[positions].astype(np.float64) + v * step).astype(
                    np.float32
                )
        for j, x in enumerate(dense_rows):
            row = x[e]
            delta = model.dense_delta[j]
            delta[: row.size] = delta[: row.size] + row * np.float32(step)
        state[e] = (
            new_dual,
            loss.primal_loss(prev, label, ex.weight),
            loss.dual_loss(dual, label, ex.weight),
            ex.weight,
        )
    sparse_out = [dlt.reshape(sh) for dlt, sh in zip(model.sparse_delta, model.sparse_shapes)]
    dense_out = [dlt.reshape(sh) for dlt, sh in zip(model.dense_delta, model.dense_shapes)]
    return (state, *sparse_out, *dense_out)


def _sdca_kernel(node: Any, xp: Any) -> Compute:
    opts = _options(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        with np.errstate(over="ignore"):
            return _sdca_pass(opts, [np.asarray(x) for x in ins])

    return compute


kernel("SdcaOptimizer", devices=CPU_ONLY)(_sdca_kernel)
kernel("SdcaOptimizerV2", devices=CPU_ONLY)(_sdca_kernel)


@kernel("SdcaShrinkL1", devices=CPU_ONLY)
def sdca_shrink_l1(node: Any, xp: Any) -> Compute:
    shrinkage = float(np.float32(node.attrs["l1"])) / float(np.float32(node.attrs["l2"]))
    name = node.name

    def compute(ctx: Any, refs: list[Any]) -> tuple[Any, ...]:
        with locked(refs):
            arrays = [in_place.writable_value(xp, r, name) for r in refs]
            try:
                for a in arrays:
                    a[...] = _shrink(np.asarray(a), shrinkage)
            finally:
                for r, a in zip(refs, arrays):
                    in_place.done(r, a)
        return ()

    return compute


def _signed(v: int) -> int:
    return v - _U64 if v >= 1 << 63 else v


@kernel("SdcaFprint", devices=CPU_ONLY)
def sdca_fprint(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (ids,) = ins
        if np.ndim(ids) != 1:
            raise invalid(f"Input must be a vector, got shape {shape_str(np.shape(ids))}")
        out = np.empty((len(ids), 2), np.int64)
        for i, s in enumerate(ids.tolist()):
            low, high = farmhash.fingerprint128(bytes(s))
            # 0 and 1 never lead a fingerprint: they are the state table's reserved keys.
            if low < 2:
                low = (low - 2) % _U64
            out[i] = (_signed(low), _signed(high))
        return (out,)

    return compute
