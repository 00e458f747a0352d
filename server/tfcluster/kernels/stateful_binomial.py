"""StatefulRandomBinomial (tf.random.experimental.Generator.binomial) with TF 1.15's samplers on
the generator's Philox stream: binomial inversion (summing geometric draws) when
count * min(p, 1 - p) < 10, else Hormann's BTRS transformed rejection. Each sample starts a
fresh pair of uniform doubles per generator call (TF makes a new UniformDistribution per
sample), taking the second before the first. Batches (rows of shape[0], or runs of 100 when
both parameters are scalars) follow each other in one stream, as TF's kernel does when its
work is one shard. Samples are drawn one after another: each consumes a data-dependent number
of generator calls.

TF 1.15's kernel writes the advanced state through a pointer taken before it makes the
variable's buffer its own: when the buffer is shared (the variable was just assigned, e.g. by
its initializer), the advance is lost and the next draw repeats this one. Kept here, so a seeded
Generator gives TF's sequence: a draw advances the state only when a random op wrote it last."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.framework import memory_budget
from tfcluster.kernels import _philox
from tfcluster.kernels.common import Compute, frozen, invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_variables import VarHandle
from tfcluster.kernels.stateful_random import _PHILOX, RNG_WRITTEN, _reserve

_DESIRED_BATCH_SIZE = 100
_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


class _Uniforms:
    """Generator calls as pairs of doubles, read in chunks."""

    _CHUNK = 256

    def __init__(self, start: _philox.Start) -> None:
        self._start = start
        self._next_call = 0
        self._pairs: list[tuple[float, float]] = []
        self._i = 0

    def pair(self) -> tuple[float, float]:
        if self._i >= len(self._pairs):
            start = _philox.Start(
                self._start.key, self._start.base, self._start.first + self._next_call
            )
            w = _philox.words(start, self._CHUNK)
            first = _philox.uint64_to_double(w[:, 0], w[:, 1]).tolist()
            second = _philox.uint64_to_double(w[:, 2], w[:, 3]).tolist()
            self._pairs = list(zip(first, second))
            self._next_call += self._CHUNK
            self._i = 0
        self._i += 1
        return self._pairs[self._i - 1]


def _tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 + 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(count: float, prob: float, uniforms: _Uniforms) -> float:
    geom_sum, num_geom = 0.0, 0
    denominator = math.log1p(-prob)
    while True:
        d0, d1 = uniforms.pair()
        for u in (d1, d0):
            geom_sum += math.ceil(_log(u) / denominator)
            if geom_sum > count:
                return float(num_geom)
            num_geom += 1


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _btrs(count: float, prob: float, uniforms: _Uniforms) -> float:
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    while True:
        v, u = uniforms.pair()  # TF takes the pair's second uniform first
        u -= 0.5
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        alpha = (2.83 + 5.1 / b) * stddev
        m = math.floor((count + 1) * prob)
        v = _log(v * alpha / (a / (us * us) + b))
        upper = (
            (m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * math.log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
            + _tail(m)
            + _tail(count - m)
            - _tail(k)
            - _tail(count - k)
        )
        if v <= upper:
            return float(k)


def _sample(count: Any, prob: Any, t: Any, uniforms: _Uniforms) -> float:
    dcount = float(count)
    if dcount <= 0.0 or prob <= t(0):
        return 0.0
    if prob >= t(1):
        return dcount
    if prob <= t(0.5):
        if count * prob >= t(10):
            return _btrs(dcount, float(prob), uniforms)
        return _inversion(dcount, float(prob), uniforms)
    if prob > t(0.5):
        q = t(t(1) - prob)
        if count * q >= t(10):
            return dcount - _btrs(dcount, float(q), uniforms)
        return dcount - _inversion(dcount, float(q), uniforms)
    return math.nan  # prob is NaN


# TF advances the state by 256 generator calls per reserved sample, as its other ops do.
_CALLS_PER_SAMPLE = 256


def _start(state: Any, algorithm: Any, calls: int, name: str) -> _philox.Start:
    """Where the draw starts; the state moves on unless its buffer is not the random ops'
    own (TF 1.15's lost update, see above), which it is afterwards."""
    with state.lock:
        value = state.value
        owned = value is not None and RNG_WRITTEN.get(id(value)) is value
        if owned or value is None or int(np.asarray(algorithm)) != _PHILOX:
            owned = True
    if owned:
        return _reserve(state, algorithm, calls, name)
    start = _reserve(state, algorithm, 0, name)  # checks the state, moves nothing
    with state.lock:
        state.value = frozen(np.array(state.read(name), copy=True))
        RNG_WRITTEN[id(state.value)] = state.value
    return start


def _vector_shape(value: Any) -> list[int]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise invalid(f"Input shape should be a vector, got shape: {shape_str(arr.shape)}")
    dims = [int(d) for d in arr]
    if any(d < 0 for d in dims):
        raise invalid(f"Dimension {min(dims)} must be >= 0")
    return dims


@kernel("StatefulRandomBinomial", devices=CPU_ONLY)
def stateful_random_binomial(node: Any, xp: Any) -> Compute:
    out_dtype = np.dtype(node.attrs["dtype"].as_numpy_dtype)
    param_dtype = np.dtype(node.attrs["T"].as_numpy_dtype)
    t = param_dtype.type

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        state = ins[0]
        if isinstance(state, VarHandle):
            state = state.lookup()
        algorithm = np.asarray(ins[1])
        if algorithm.ndim != 0:
            raise invalid(f"algorithm must be of shape [], not {shape_str(algorithm.shape)}")
        shape = _vector_shape(ins[2])
        memory_budget.check_shape(shape, out_dtype, "StatefulRandomBinomial's output")
        num_batches = shape[0] if shape else 1
        per_batch = int(np.prod(shape[1:], dtype=np.int64))
        size = num_batches * per_batch
        counts = np.asarray(ins[3], dtype=param_dtype)
        probs = np.asarray(ins[4], dtype=param_dtype)
        for p, what in ((counts, "counts"), (probs, "probs")):
            if p.ndim > 1:
                raise invalid(
                    f"Input {what} should be a scalar or vector, got shape: {shape_str(p.shape)}"
                )
        if all(p.ndim == 0 or p.shape[0] == 1 for p in (counts, probs)):
            per_batch = _DESIRED_BATCH_SIZE
            num_batches = -(-size // per_batch)
        else:
            for p, what in ((counts, "counts"), (probs, "probs")):
                if p.ndim and p.shape[0] not in (1, num_batches):
                    raise invalid(
                        f"Input {what} should have length 1 or shape[0], got shape: "
                        f"{shape_str(p.shape)}"
                    )
        calls = num_batches * 2 * 100 * (per_batch + 3) // 4
        uniforms = _Uniforms(_start(state, algorithm, calls * _CALLS_PER_SAMPLE, node.name))
        flat_counts, flat_probs = counts.reshape(-1), probs.reshape(-1)
        out = np.empty(size, dtype=np.float64)
        for b in range(num_batches):
            count = flat_counts[0] if flat_counts.size == 1 else flat_counts[b]
            prob = flat_probs[0] if flat_probs.size == 1 else flat_probs[b]
            for i in range(b * per_batch, min((b + 1) * per_batch, size)):
                out[i] = _sample(count, prob, t, uniforms)
        if out_dtype.kind in "iu":
            values = np.trunc(np.nan_to_num(out)).astype(out_dtype)
        else:
            values = out.astype(out_dtype)
        return (xp.asarray(values.reshape(shape)),)

    return compute
