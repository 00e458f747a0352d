"""Statistics and split finding of TF's gradient boosted trees (stats_ops.cc): gradients and
hessians summed per (node, feature, bucket), then each node's best split from cumulative sums,
with TF's float32 arithmetic and order (sums in bucket order, the first best gain kept unless a
later one is larger by 1e-15), so gains, thresholds and contributions are TF's."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.boosted_trees_resources import scalar
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

_F32 = np.float32
_LOWEST = np.finfo(np.float32).min
_EPS = _F32(1e-15)


def weights_and_gains(g: Any, h: Any, l1: Any, l2: Any) -> tuple[np.ndarray, np.ndarray]:
    """TF's CalculateWeightsAndGains for one logit, over arrays: a leaf's weight
    -(g -+ l1)/(h + l2) and gain -(g -+ l1) * weight; zero where |g| <= l1 or h + l2 ~ 0."""
    g = np.asarray(g, dtype=np.float32)
    h = np.asarray(h, dtype=np.float32)
    l1, l2 = _F32(l1), _F32(l2)
    zero = np.zeros(g.shape, dtype=bool)
    g_l1 = g
    if l1 > 0:
        g_l1 = np.where(g > l1, g - l1, np.where(g < -l1, g + l1, g)).astype(np.float32)
        zero = (g <= l1) & (g >= -l1)
    denom = (h + l2).astype(np.float32)
    zero = zero | (denom <= _EPS)
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(zero, _F32(0.0), -g_l1 / np.where(zero, _F32(1.0), denom))
        weight = weight.astype(np.float32)
        gain = np.where(zero, _F32(0.0), -g_l1 * weight).astype(np.float32)
    return weight, gain


def _node_range(value: Any) -> tuple[int, int]:
    r = np.asarray(value)
    if r.ndim != 1 or r.shape[0] != 2:
        raise invalid(f"node_id_range must be a rank 1 tensor with shape=[2], got {list(r.shape)}")
    return int(r[0]), int(r[1])


class _Best:
    """Per node, the best split so far (TF's scan over candidates)."""

    def __init__(self, n: int) -> None:
        self.gain = np.full(n, _LOWEST, dtype=np.float32)
        self.bucket = np.zeros(n, dtype=np.int32)
        self.dim = np.zeros(n, dtype=np.int32)
        self.left = np.zeros(n, dtype=np.float32)
        self.right = np.zeros(n, dtype=np.float32)
        self.kind = np.zeros(n, dtype=np.int32)

    def offer_all(
        self,
        gl: np.ndarray,
        gr: np.ndarray,
        hl: np.ndarray,
        hr: np.ndarray,
        l1: Any,
        l2: Any,
        buckets: Any,
        dim: int = 0,
        kinds: Any = None,
    ) -> None:
        """Candidates [nodes, k] in TF's order: weights and gains of all at once, then TF's
        scan (a later candidate wins only when larger by 1e-15)."""
        wl, gain_l = weights_and_gains(gl, hl, l1, l2)
        wr, gain_r = weights_and_gains(gr, hr, l1, l2)
        totals = (gain_l + gain_r).astype(np.float32)
        kinds = [0] * totals.shape[1] if kinds is None else kinds
        for k in range(totals.shape[1]):
            better = (totals[:, k] - self.gain).astype(np.float32) >= _EPS
            if not better.any():
                continue
            self.gain = np.where(better, totals[:, k], self.gain)
            self.left = np.where(better, wl[:, k], self.left)
            self.right = np.where(better, wr[:, k], self.right)
            self.bucket[better] = buckets[k]
            self.dim[better] = dim
            self.kind[better] = kinds[k]


def _regularization(ins: list[Any], start: int) -> tuple[Any, Any, Any, Any]:
    names = ("l1", "l2", "tree_complexity", "min_node_weight")
    return tuple(_F32(scalar(ins[start + i], n)) for i, n in enumerate(names))  # type: ignore[return-value]


@kernel("BoostedTreesCalculateBestGainsPerFeature", devices=CPU_ONLY)
def calculate_best_gains_per_feature(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        first, last = _node_range(ins[0])
        summaries = [np.asarray(s, dtype=np.float32) for s in ins[1 : 1 + n]]
        l1, l2, complexity, min_weight = _regularization(ins, 1 + n)
        if summaries[0].ndim != 3 or summaries[0].shape[2] != 2:
            raise invalid(
                "stats_summary_list[0] must have exactly 2 dimensions, obtained: "
                f"{summaries[0].shape[2] if summaries[0].ndim == 3 else summaries[0].ndim}"
            )
        outs: list[list[Any]] = [[], [], [], [], []]
        for stats in summaries:
            if stats.shape[0] < last:
                raise invalid(
                    f"node_id_range [{first}, {last}) is beyond stats of {stats.shape[0]} nodes"
                )
            block = stats[first:last]
            cum_g = np.cumsum(block[:, :, 0], axis=1, dtype=np.float32)
            cum_h = np.cumsum(block[:, :, 1], axis=1, dtype=np.float32)
            total_g, total_h = cum_g[:, -1], cum_h[:, -1]
            keep = ~(total_h < min_weight)
            _, parent = weights_and_gains(total_g, total_h, l1, l2)
            best = _Best(last - first)
            best.offer_all(
                cum_g,
                (total_g[:, None] - cum_g).astype(np.float32),
                cum_h,
                (total_h[:, None] - cum_h).astype(np.float32),
                l1,
                l2,
                buckets=range(block.shape[1]),
            )
            sel = np.nonzero(keep)[0]
            gains = ((best.gain - parent).astype(np.float32) - complexity).astype(np.float32)
            outs[0].append((sel + first).astype(np.int32))
            outs[1].append(gains[sel])
            outs[2].append(best.bucket[sel])
            outs[3].append(best.left[sel].reshape(-1, 1))
            outs[4].append(best.right[sel].reshape(-1, 1))
        return tuple(x for group in outs for x in group)

    return compute


_SPLIT_NAMES = np.asarray(
    [b"INEQUALITY_DEFAULT_LEFT", b"INEQUALITY_DEFAULT_RIGHT", b"EQUALITY_DEFAULT_RIGHT"],
    dtype=object,
)


def _split_outputs(best: _Best, sel: np.ndarray, first: int, parent: Any, complexity: Any) -> Any:
    gains = ((best.gain - parent).astype(np.float32) - complexity).astype(np.float32)
    return (
        (sel + first).astype(np.int32),
        gains[sel],
        best.dim[sel],
        best.bucket[sel],
        best.left[sel].reshape(-1, 1),
        best.right[sel].reshape(-1, 1),
        _SPLIT_NAMES[best.kind[sel]],
    )


@kernel("BoostedTreesCalculateBestFeatureSplit", devices=CPU_ONLY)
def calculate_best_feature_split(node: Any, xp: Any) -> Any:
    logits_dim = int(node.attrs["logits_dimension"])
    split_type = node.attrs.get("split_type", "inequality")
    split_type = split_type.decode() if isinstance(split_type, bytes) else split_type

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        first, last = _node_range(ins[0])
        stats = np.asarray(ins[1], dtype=np.float32)
        if stats.ndim != 4:
            raise invalid("stats_summary argument must have rank 4")
        hessian_dim = stats.shape[3] - logits_dim
        if hessian_dim <= 0:
            raise invalid(f"hessian dim should be < 0, got {hessian_dim}")
        if logits_dim != 1:
            raise errors.UnimplementedError(
                None, None, "tfcluster's BoostedTreesCalculateBestFeatureSplit takes one logit"
            )
        l1, l2, complexity, min_weight = _regularization(ins, 2)
        block = stats[first:last]
        feature_dims, num_buckets = block.shape[1], block.shape[2] - 1
        # The parent: every bucket (the missing-value one too) of the first feature dimension.
        total_g = np.cumsum(block[:, 0, :, 0], axis=1, dtype=np.float32)[:, -1]
        total_h = np.cumsum(block[:, 0, :, 1], axis=1, dtype=np.float32)[:, -1]
        keep = ~(np.abs(total_h) < min_weight)
        _, parent = weights_and_gains(total_g, total_h, l1, l2)
        best = _Best(last - first)
        for f in range(feature_dims):
            if split_type == "inequality":
                cum_g = np.cumsum(block[:, f, :, 0], axis=1, dtype=np.float32)
                cum_h = np.cumsum(block[:, f, :, 1], axis=1, dtype=np.float32)
                all_g, all_h = cum_g[:, num_buckets], cum_h[:, num_buckets]
                miss_g, miss_h = block[:, f, num_buckets, 0], block[:, f, num_buckets, 1]
                # Per bucket, missing values left (default left), then right: interleaved.
                cg, ch = cum_g[:, :num_buckets], cum_h[:, :num_buckets]
                lg = np.empty((cg.shape[0], 2 * num_buckets), dtype=np.float32)
                lh = np.empty_like(lg)
                lg[:, 0::2] = cg + miss_g[:, None]
                lg[:, 1::2] = cg
                lh[:, 0::2] = ch + miss_h[:, None]
                lh[:, 1::2] = ch
                best.offer_all(
                    lg,
                    (all_g[:, None] - lg).astype(np.float32),
                    lh,
                    (all_h[:, None] - lh).astype(np.float32),
                    l1,
                    l2,
                    buckets=np.repeat(np.arange(num_buckets), 2),
                    dim=f,
                    kinds=[0, 1] * num_buckets,
                )
            else:
                g, h = block[:, f, :num_buckets, 0], block[:, f, :num_buckets, 1]
                best.offer_all(
                    g,
                    (total_g[:, None] - g).astype(np.float32),
                    h,
                    (total_h[:, None] - h).astype(np.float32),
                    l1,
                    l2,
                    buckets=range(num_buckets),
                    dim=f,
                    kinds=[2] * num_buckets,
                )
        sel = np.nonzero(keep & (best.gain != _LOWEST))[0]
        return _split_outputs(best, sel, first, parent, complexity)

    return compute


@kernel("BoostedTreesSparseCalculateBestFeatureSplit", devices=CPU_ONLY)
def sparse_calculate_best_feature_split(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _node_range(ins[0])  # checked; the entries themselves name their nodes
        indices = np.asarray(ins[1]).astype(np.int64)
        values = np.asarray(ins[2], dtype=np.float32)
        shape = np.asarray(ins[3])
        if shape.ndim != 1:
            raise invalid(
                f"stats_summary_shape must be a vector, got a tensor of shape {list(shape.shape)}"
            )
        num_buckets, stats_dims = int(shape[2]) - 1, int(shape[3])
        l1, l2, complexity, min_weight = _regularization(ins, 4)
        # node -> feature dim -> bucket -> stats, in key order (TF's std::map).
        nodes: dict[int, dict[int, dict[int, list[Any]]]] = {}
        for k, (node_id, f, b, s) in enumerate(indices.tolist()):
            if not 0 <= s < stats_dims:
                raise invalid(
                    f"Stat dim, the sum of logits dim and hessian dim in stats_summary_indices, "
                    f"cannot be greater than stats dims, the last value in stats_summary_shape, "
                    f"which was {stats_dims}. At index ({k}, 4), stats_summary_indices contains "
                    f"value {s}"
                )
            cell = nodes.setdefault(node_id, {}).setdefault(f, {})
            cell.setdefault(b, [_F32(0.0)] * stats_dims)[s] = values[k]
        out_nodes, out_gains, out_dims, out_thr, out_l, out_r, out_types = ([] for _ in range(7))
        for node_id in sorted(nodes):
            found = _sparse_node(nodes[node_id], num_buckets, min_weight, l1, l2)
            if found is None:
                continue
            gain, f, b, kind, wl, wr = found
            out_nodes.append(node_id)
            out_gains.append(_F32(gain - complexity))
            out_dims.append(f)
            out_thr.append(b)
            out_l.append(wl)
            out_r.append(wr)
            out_types.append(_SPLIT_NAMES[kind])
        return (
            np.asarray(out_nodes, dtype=np.int32),
            np.asarray(out_gains, dtype=np.float32),
            np.asarray(out_dims, dtype=np.int32),
            np.asarray(out_thr, dtype=np.int32),
            np.asarray(out_l, dtype=np.float32).reshape(-1, 1),
            np.asarray(out_r, dtype=np.float32).reshape(-1, 1),
            np.asarray(out_types, dtype=object),
        )

    return compute


def _sparse_node(
    features: dict[int, dict[int, list[Any]]], num_buckets: int, min_weight: Any, l1: Any, l2: Any
) -> Any:
    """TF's process_node: the parent from the first feature dimension's buckets; per dimension,
    buckets left to right with the missing values right, then left."""
    best_gain: Any = _LOWEST
    best: tuple[Any, ...] = (0, 0, 0, _F32(0.0), _F32(0.0))
    total_g: Any = _F32(0.0)
    total_h: Any = _F32(0.0)
    parent: Any = _F32(0.0)
    for i, f in enumerate(sorted(features)):
        buckets = features[f]
        default = buckets.get(num_buckets)
        dg = _F32(default[0]) if default is not None else _F32(0.0)
        dh = _F32(default[1]) if default is not None else _F32(0.0)
        if i == 0:
            for b in sorted(buckets):
                total_g = _F32(total_g + buckets[b][0])
                total_h = _F32(total_h + buckets[b][1])
            if total_h < min_weight:
                break
            parent = weights_and_gains(total_g, total_h, l1, l2)[1][()]
        left_g = left_h = _F32(0.0)
        for b in sorted(buckets):
            if b == num_buckets:
                break
            left_g = _F32(left_g + buckets[b][0])
            left_h = _F32(left_h + buckets[b][1])
            for kind, lg, lh in (
                (1, left_g, left_h),
                (0, _F32(left_g + dg), _F32(left_h + dh)),
            ):
                if kind == 1:
                    rg, rh = _F32(total_g - lg), _F32(total_h - lh)
                else:
                    rg = _F32(_F32(total_g - dg) - left_g)
                    rh = _F32(_F32(total_h - dh) - left_h)
                wl, gl = weights_and_gains(lg, lh, l1, l2)
                wr, gr = weights_and_gains(rg, rh, l1, l2)
                total = _F32(gl[()] + gr[()])
                if _F32(total - best_gain) >= _EPS:
                    best_gain = total
                    best = (f, b, kind, wl[()], wr[()])
    if best_gain == _LOWEST:
        return None
    f, b, kind, wl, wr = best
    return _F32(best_gain - parent), f, b, kind, wl, wr


# ---- statistics ----------------------------------------------------------------------------
def _grads(ins: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    node_ids = np.asarray(ins[0]).astype(np.int64)
    grads = np.asarray(ins[1], dtype=np.float32)
    hess = np.asarray(ins[2], dtype=np.float32)
    if grads.ndim != 2 or hess.ndim != 2:
        raise invalid(
            f"gradients and hessians must be matrices, got shapes {list(grads.shape)} and "
            f"{list(hess.shape)}"
        )
    if node_ids.ndim != 1 or node_ids.shape[0] != grads.shape[0]:
        raise invalid(
            "node_ids size should match 0th dim of gradients. node ids size: "
            f"{node_ids.size}, gradients dim0: {grads.shape[0]}"
        )
    return node_ids, grads, hess


def _check_nodes(node_ids: np.ndarray, max_splits: int) -> None:
    if node_ids.size and (node_ids.min() < 0 or node_ids.max() >= max_splits):
        bad = int(node_ids[(node_ids < 0) | (node_ids >= max_splits)][0])
        raise invalid(f"node_ids must be in [0, max_splits={max_splits}), got {bad}")


@kernel("BoostedTreesMakeStatsSummary", devices=CPU_ONLY)
def make_stats_summary(node: Any, xp: Any) -> Any:
    max_splits, num_buckets = int(node.attrs["max_splits"]), int(node.attrs["num_buckets"])
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        node_ids, grads, hess = _grads(ins)
        _check_nodes(node_ids, max_splits)
        # Summed in float64, handed out as float32 (as TF). TF indexes the flat summary
        # without bounds checks: a bucket past num_buckets (quantile boundaries can be a few
        # more than the buckets asked for) lands in the next node's first buckets, as here;
        # past the end of the summary TF writes outside it (the summary never sees those),
        # here they are dropped.
        stats = np.zeros(n * max_splits * num_buckets * 2, dtype=np.float64)
        for f, column in enumerate(ins[3 : 3 + n]):
            buckets = np.asarray(column).astype(np.int64).reshape(-1)
            if buckets.size and buckets.min() < 0:
                raise invalid(f"bucketized feature {f} has a negative bucket")
            flat = ((f * max_splits + node_ids) * num_buckets + buckets) * 2
            inside = flat < stats.size
            np.add.at(stats, flat[inside], grads[inside, 0].astype(np.float64))
            np.add.at(stats, flat[inside] + 1, hess[inside, 0].astype(np.float64))
        summary = stats.reshape(n, max_splits, num_buckets, 2)
        return (summary.astype(np.float32),)

    return compute


@kernel("BoostedTreesAggregateStats", devices=CPU_ONLY)
def aggregate_stats(node: Any, xp: Any) -> Any:
    max_splits, num_buckets = int(node.attrs["max_splits"]), int(node.attrs["num_buckets"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        node_ids, grads, hess = _grads(ins)
        feature = np.asarray(ins[3]).astype(np.int64)
        if feature.ndim != 2:
            raise invalid(f"feature must be a matrix, received shape {list(feature.shape)}")
        if node_ids.size and node_ids.min() < 0:
            i = int(np.nonzero(node_ids < 0)[0][0])
            raise invalid(f"node_ids {i}th entry should be >=0, got: {int(node_ids[i])}")
        _check_nodes(node_ids, max_splits)
        dims = feature.shape[1]
        stats_dims = grads.shape[1] + hess.shape[1]
        stats = np.zeros((max_splits, dims, num_buckets + 1, stats_dims), dtype=np.float64)
        buckets = np.where(feature == -1, num_buckets, feature)
        if buckets.size and (buckets.min() < 0 or buckets.max() > num_buckets):
            raise invalid(
                f"feature values must be in [-1, {num_buckets}), got {int(buckets.max())}"
            )
        both = np.concatenate([grads, hess], axis=1).astype(np.float64)
        rows = np.repeat(node_ids, dims)
        cols = np.tile(np.arange(dims), node_ids.shape[0])
        np.add.at(stats, (rows, cols, buckets.reshape(-1)), np.repeat(both, dims, axis=0))
        return (stats.astype(np.float32),)

    return compute


@kernel("BoostedTreesSparseAggregateStats", devices=CPU_ONLY)
def sparse_aggregate_stats(node: Any, xp: Any) -> Any:
    max_splits, num_buckets = int(node.attrs["max_splits"]), int(node.attrs["num_buckets"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        node_ids, grads, hess = _grads(ins)
        if node_ids.size and node_ids.max() > max_splits:
            i = int(np.nonzero(node_ids > max_splits)[0][0])
            raise invalid(
                f"Nodes in node_ids must be at most max_splits. Node {i} is "
                f"{int(node_ids[i])} which is greater than {max_splits}"
            )
        indices = np.asarray(ins[3]).astype(np.int64)
        values = np.asarray(ins[4]).astype(np.int64)
        shape = np.asarray(ins[5]).astype(np.int64)
        if indices.ndim != 2 or indices.shape[1] != 2:
            raise invalid(
                "feature_indices must be a matrix of shape [?, 2], received shape "
                f"{list(indices.shape)}"
            )
        if values.ndim != 1 or values.shape[0] != indices.shape[0]:
            raise invalid(
                "Number of elements in feature_values must match number of sparse entries in "
                f"feature_indices. Got {values.size} and {indices.shape[0]}"
            )
        batch, dims = grads.shape[0], int(shape[1])
        stats_dims = grads.shape[1] + hess.shape[1]
        both = np.concatenate([grads, hess], axis=1)
        # Every (instance, dimension) without an entry counts in the missing-value bucket.
        bucket = np.full((batch, dims), num_buckets, dtype=np.int64)
        if indices.size:
            inst, dim = indices[:, 0], indices[:, 1]
            if inst.min() < 0 or inst.max() >= batch or dim.min() < 0 or dim.max() >= dims:
                raise invalid("feature_indices are outside the batch or feature_shape")
            if np.any(np.diff(inst) < 0):
                raise invalid("feature_indices should be increasing")
            bucket[inst, dim] = values
        table: dict[tuple[int, int, int], np.ndarray] = {}
        for i in range(batch):
            n_i = int(node_ids[i])
            for d in range(dims):
                key = (n_i, d, int(bucket[i, d]))
                held = table.get(key)
                table[key] = both[i].copy() if held is None else (held + both[i]).astype(np.float32)
        keys = sorted(table)
        out_idx = np.asarray(
            [[k[0], k[1], k[2], s] for k in keys for s in range(stats_dims)], dtype=np.int32
        ).reshape(-1, 4)
        out_val = np.asarray([table[k][s] for k in keys for s in range(stats_dims)], np.float32)
        out_shape = np.asarray([max_splits, dims, num_buckets + 1, stats_dims], dtype=np.int32)
        return (out_idx, out_val, out_shape)

    return compute
