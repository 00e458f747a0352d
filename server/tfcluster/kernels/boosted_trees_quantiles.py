"""TF's weighted quantile summaries and streams (kernels/boosted_trees/quantiles/) and the ops
over them (quantile_ops.cc): per feature a stream of (value, weight) pairs compacted into
summaries of (value, weight, min_rank, max_rank) with bounded rank error, merged level by level
and finally turned into bucket boundaries. Ranks and weights are float32 and the compression
bounds double, as in TF, so the boundaries are TF's; BoostedTreesBucketize maps values to them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.kernels.boosted_trees_resources import (
    QUANTILE_TYPE,
    QuantileStreamResource,
    handle_of,
    quantiles_of,
    scalar,
)
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

_F32 = np.float32
# A summary: rows of (value, weight, min_rank, max_rank), float32, sorted by value.
Summary = np.ndarray


def _empty() -> Summary:
    return np.zeros((0, 4), dtype=np.float32)


def quantile_specs(eps: float, max_elements: int) -> tuple[int, int]:
    """TF's GetQuantileSpecs: the fewest levels (and their block size) whose capacity
    2^levels * block_size covers max_elements."""
    if eps <= np.finfo(np.float64).eps:
        return 1, max(max_elements, 2)
    level, block = 1, 2
    while (1 << level) * block < max_elements:
        block = math.ceil(level / eps) + 1
        level += 1
    return level, max(block, 2)


def from_buffer(values: np.ndarray, weights: np.ndarray) -> Summary:
    """A summary of raw entries: sorted, equal values merged, ranks from cumulative weights."""
    if not values.size:
        return _empty()
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    starts = np.concatenate([[0], np.nonzero(v[1:] != v[:-1])[0] + 1])
    ends = np.concatenate([starts[1:], [len(v)]])
    uniq = v[starts]
    # Equal values' weights add up in order, in float32. numpy's reduce is sequential below
    # 8 elements (pairwise above): the longer runs are summed with a sequential cumsum.
    merged = np.add.reduceat(w, starts).astype(np.float32)
    for k in np.nonzero(ends - starts >= 8)[0]:
        merged[k] = np.cumsum(w[starts[k] : ends[k]], dtype=np.float32)[-1]
    upper = np.cumsum(merged, dtype=np.float32)
    lower = np.concatenate([[_F32(0.0)], upper[:-1]]).astype(np.float32)
    return np.stack([uniq, merged, lower, upper], axis=1).astype(np.float32)


def merge(base: Summary, other: Summary) -> Summary:
    """TF's Merge: a merge sort of two summaries keeping rank bounds (equal values add up)."""
    if not len(other):
        return base
    if not len(base):
        return other.copy()
    out: list[tuple[Any, Any, Any, Any]] = []
    i = j = 0
    next1 = next2 = _F32(0.0)
    a = [tuple(_F32(x) for x in row) for row in base]
    b = [tuple(_F32(x) for x in row) for row in other]
    while i < len(a) and j < len(b):
        v1, w1, lo1, hi1 = a[i]
        v2, w2, lo2, hi2 = b[j]
        if v1 < v2:
            out.append((v1, w1, _F32(lo1 + next2), _F32(hi1 + _F32(hi2 - w2))))
            next1 = _F32(lo1 + w1)
            i += 1
        elif v2 < v1:
            out.append((v2, w2, _F32(lo2 + next1), _F32(hi2 + _F32(hi1 - w1))))
            next2 = _F32(lo2 + w2)
            j += 1
        else:
            out.append((v1, _F32(w1 + w2), _F32(lo1 + lo2), _F32(hi1 + hi2)))
            next1 = _F32(lo1 + w1)
            next2 = _F32(lo2 + w2)
            i += 1
            j += 1
    last2, last1 = b[-1][3], a[-1][3]
    for v1, w1, lo1, hi1 in a[i:]:
        out.append((v1, w1, _F32(lo1 + next2), _F32(hi1 + last2)))
    for v2, w2, lo2, hi2 in b[j:]:
        out.append((v2, w2, _F32(lo2 + next1), _F32(hi2 + last1)))
    return np.asarray(out, dtype=np.float32).reshape(-1, 4)


def compress(s: Summary, size_hint: int, min_eps: float = 0.0) -> Summary:
    """TF's Compress: keep about size_hint entries (always the first and the last), merging
    neighbours while the rank gap stays within total weight * max(1/size_hint, min_eps)."""
    size_hint = max(size_hint, 2)
    n = len(s)
    if n <= size_hint:
        return s
    total = float(s[-1, 3])
    eps_delta = total * max(1.0 / size_hint, min_eps)
    prev_max = (s[:, 3] - s[:, 1]).astype(np.float32)
    next_min = (s[:, 2] + s[:, 1]).astype(np.float32)
    kept = [0]
    acc, step = 0, n
    read, last = 0, 0
    while read + 1 != n:
        nxt = read + 1
        while nxt != n and acc < step and float(_F32(prev_max[nxt] - next_min[read])) <= eps_delta:
            acc += size_hint
            nxt += 1
        read = read + 1 if read == nxt - 1 else nxt - 1
        kept.append(read)
        last = read
        acc -= step
    if last + 1 != n:
        kept.append(n - 1)
    return s[kept]


def approximation_error(s: Summary) -> float:
    if not len(s):
        return 0.0
    gap = _F32(0.0)
    for k in range(1, len(s)):
        inner = _F32(_F32(s[k, 3] - s[k, 2]) - s[k, 1])
        between = _F32(_F32(s[k, 3] - s[k, 1]) - _F32(s[k - 1, 2] + s[k - 1, 1]))
        gap = max(gap, max(inner, between))
    return float(gap) / float(s[-1, 3])


def generate_boundaries(s: Summary, num_boundaries: int) -> np.ndarray:
    if not len(s):
        return np.zeros(0, dtype=np.float32)
    eps = float(_F32(approximation_error(s) + 1.0 / num_boundaries))
    values = compress(s.copy(), num_boundaries, eps)[:, 0]
    # Neighbouring duplicates dropped (std::unique).
    keep = np.concatenate([[True], values[1:] != values[:-1]])
    return values[keep].astype(np.float32)


def generate_quantiles(s: Summary, num_quantiles: int) -> np.ndarray:
    if not len(s):
        return np.zeros(0, dtype=np.float32)
    num_quantiles = max(num_quantiles, 2)
    out = []
    cur = 0
    top = _F32(s[-1, 3])
    for rank in range(num_quantiles + 1):
        d_2 = _F32(2 * _F32(_F32(rank * top) / num_quantiles))
        nxt = cur + 1
        while nxt < len(s) and d_2 >= _F32(s[nxt, 2] + s[nxt, 3]):
            nxt += 1
        cur = nxt - 1
        if nxt == len(s) or d_2 < _F32(_F32(s[cur, 2] + s[cur, 1]) + _F32(s[nxt, 3] - s[nxt, 1])):
            out.append(s[cur, 0])
        else:
            out.append(s[nxt, 0])
    return np.asarray(out, dtype=np.float32)


class QuantileStream:
    """TF's WeightedQuantilesStream: a buffer of raw entries, compressed into summaries that
    climb levels as they fill; Finalize merges every level into one summary."""

    def __init__(self, eps: float, max_elements: int) -> None:
        self.eps = float(eps)
        self.levels_max, self.block_size = quantile_specs(self.eps, max_elements)
        self.buffer_size = min(self.block_size << 1, max_elements)
        self._values: list[np.ndarray] = []
        self._weights: list[np.ndarray] = []
        self._buffered = 0
        self.levels: list[Summary] = []
        self.final = _empty()
        self.finalized = False

    def push_entries(self, values: np.ndarray, weights: np.ndarray) -> None:
        keep = weights > 0  # zero and negative weights are ignored
        values, weights = values[keep], weights[keep]
        while values.size:
            room = self.buffer_size - self._buffered
            self._values.append(values[:room])
            self._weights.append(weights[:room])
            self._buffered += min(room, values.size)
            values, weights = values[room:], weights[room:]
            if self._buffered >= self.buffer_size:
                self._push_buffer()

    def _push_buffer(self) -> None:
        v = np.concatenate(self._values) if self._values else np.zeros(0, np.float32)
        w = np.concatenate(self._weights) if self._weights else np.zeros(0, np.float32)
        self._values, self._weights, self._buffered = [], [], 0
        self._propagate(compress(from_buffer(v, w), self.block_size, self.eps))

    def push_summary(self, summary: Summary) -> None:
        self._propagate(compress(summary, self.block_size, self.eps))

    def _propagate(self, local: Summary) -> None:
        if not len(local):
            return
        level = 0
        while True:
            if len(self.levels) <= level:
                self.levels.append(_empty())
            current = self.levels[level]
            local = merge(local, current)
            if not len(current) or len(local) <= self.block_size + 1:
                self.levels[level] = local
                return
            local = compress(local, self.block_size, self.eps)
            self.levels[level] = _empty()
            level += 1

    def finalize(self) -> None:
        self._push_buffer()
        final = _empty()
        for summary in self.levels:
            final = merge(final, summary)
        self.levels = []
        self.final = final
        self.finalized = True


def _floats(values: list[Any]) -> list[np.ndarray]:
    return [np.asarray(v, dtype=np.float32).reshape(-1) for v in values]


@kernel("BoostedTreesMakeQuantileSummaries", devices=CPU_ONLY)
def make_quantile_summaries(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        features = _floats(ins[:n])
        weights = np.asarray(ins[n], dtype=np.float32).reshape(-1)
        eps = float(_F32(scalar(ins[n + 1], "epsilon")))
        batch = features[0].size if features else 0
        if weights.size not in (1, batch):
            raise invalid("Weights should be a single value or same size as features.")
        if eps <= 0:
            raise invalid("An epsilon value of zero is not allowed.")
        w = np.broadcast_to(weights, (batch,)).astype(np.float32)
        out = []
        for values in features:
            stream = QuantileStream(eps, batch + 1)
            stream.push_entries(values, w)
            stream.finalize()
            out.append(stream.final)
        return tuple(out)

    return compute


@kernel("BoostedTreesCreateQuantileStreamResource", devices=CPU_ONLY)
def create_quantile_stream_resource(node: Any, xp: Any) -> Any:
    max_elements = int(node.attrs.get("max_elements", 1 << 40))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        handle = handle_of(ins[0], QUANTILE_TYPE)
        eps = float(_F32(scalar(ins[1], "epsilon")))
        if not eps > 0:
            raise invalid("An epsilon value of zero is not allowed.")
        num_streams = int(scalar(ins[2], "num_streams"))
        if num_streams < 0:
            raise invalid("Num_streams input cannot be a negative integer")
        handle.create(lambda: QuantileStreamResource(eps, num_streams, max_elements))
        return ()

    return compute


@kernel("IsBoostedTreesQuantileStreamResourceInitialized", devices=CPU_ONLY)
def is_quantile_initialized(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        found = handle_of(ins[0], QUANTILE_TYPE).get()
        return (np.bool_(isinstance(found, QuantileStreamResource)),)

    return compute


def _check_streams(res: QuantileStreamResource, n: int) -> None:
    if n != res.num_streams:
        raise invalid(f"The quantile stream resource has {res.num_streams} streams, got {n}")


@kernel("BoostedTreesQuantileStreamResourceAddSummaries", devices=CPU_ONLY)
def quantile_add_summaries(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = quantiles_of(ins[0])
        summaries = [np.asarray(s, dtype=np.float32) for s in ins[1:]]
        with res.lock:
            _check_streams(res, len(summaries))
            for k, s in enumerate(summaries):
                if s.ndim != 2 or s.shape[1] != 4:
                    raise invalid(f"summaries[{k}] must be [entries, 4], got {list(s.shape)}")
                stream = res.streams[k]
                if not stream.finalized:
                    stream.push_summary(s)
        return ()

    return compute


@kernel("BoostedTreesQuantileStreamResourceFlush", devices=CPU_ONLY)
def quantile_flush(node: Any, xp: Any) -> Any:
    quantiles = bool(node.attrs.get("generate_quantiles", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = quantiles_of(ins[0])
        num_buckets = int(scalar(ins[1], "num_buckets"))
        with res.lock:
            for k, stream in enumerate(res.streams):
                if not stream.finalized:
                    stream.finalize()
                if quantiles:
                    res.boundaries[k] = generate_quantiles(stream.final, num_buckets - 1)
                else:
                    res.boundaries[k] = generate_boundaries(stream.final, num_buckets)
            res.reset_streams()
            res.are_buckets_ready = True
        return ()

    return compute


@kernel("BoostedTreesFlushQuantileSummaries", devices=CPU_ONLY)
def flush_quantile_summaries(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = quantiles_of(ins[0])
        with res.lock:
            _check_streams(res, n)
            out = []
            for stream in res.streams:
                if not stream.finalized:
                    stream.finalize()
                out.append(stream.final)
            res.reset_streams()
        return tuple(out)

    return compute


@kernel("BoostedTreesQuantileStreamResourceGetBucketBoundaries", devices=CPU_ONLY)
def quantile_get_bucket_boundaries(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = quantiles_of(ins[0])
        with res.lock:
            _check_streams(res, n)
            return tuple(b.copy() for b in res.boundaries)

    return compute


@kernel("BoostedTreesQuantileStreamResourceDeserialize", devices=CPU_ONLY)
def quantile_deserialize(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_streams"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        res = quantiles_of(ins[0])
        with res.lock:
            _check_streams(res, n)
            for k, b in enumerate(ins[1 : 1 + n]):
                res.boundaries[k] = np.asarray(b, dtype=np.float32).reshape(-1).copy()
        return ()

    return compute


@kernel("BoostedTreesBucketize", devices=CPU_ONLY)
def bucketize(node: Any, xp: Any) -> Any:
    n = int(node.attrs["num_features"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        values = _floats(ins[:n])
        bounds = [np.asarray(b, dtype=np.float32) for b in ins[n : 2 * n]]
        if bounds and bounds[0].ndim != 1:
            raise invalid("Buckets should be flat vectors.")
        out = []
        for v, b in zip(values, bounds):
            b = b.reshape(-1)
            if not b.size:
                out.append(np.zeros(v.shape[0], dtype=np.int32))
                continue
            # lower_bound, the last boundary for values past it.
            idx = np.searchsorted(b, v, side="left")
            out.append(np.minimum(idx, b.size - 1).astype(np.int32))
        return tuple(out)

    return compute
