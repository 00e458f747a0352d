"""ParameterizedTruncatedNormal with TF 1.15's algorithm and Philox stream, so a seeded graph
gives TF's numbers.

The output is split in batches (rows of shape[0], or runs of 100 samples when every
parameter is a scalar); each batch picks one of TF's three rejection samplers from its
normalised bounds (normals rejected outside the bounds, a uniform proposal, or an
exponential proposal for a one-sided tail) and draws from the generator in order. Batches
follow each other in one stream, as TF's CPU kernel does when its work is one shard (outputs
up to a few thousand samples; larger outputs split over TF's threads start each shard at a
fixed skip, which depends on TF's thread count and is not modelled). The candidate stream of a
batch is fixed, so each batch is drawn vectorised: candidates in chunks, the first accepted ones
kept.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.framework import errors, memory_budget
from tfcluster.kernels import _philox
from tfcluster.kernels.common import Compute, invalid, shape_str
from tfcluster.kernels.random import _Generator
from tfcluster.kernels.registry import kernel

_MAX_ITERATIONS = 1000
_DESIRED_BATCH_SIZE = 100
_RANDN_BOUND = 1.3  # TF's kStdDevsInsideBoundsToUseRandnSampler


def _as(dtype: np.dtype[Any], values: np.ndarray) -> np.ndarray:
    """A transcendental computed in double, rounded once to the op's type (as glibc's
    correctly rounded float functions give)."""
    return values.astype(dtype)


class _Stream:
    """Consecutive generator calls from a start, read in chunks."""

    def __init__(self, start: _philox.Start) -> None:
        self._start = start
        self.position = 0  # calls consumed by finished batches

    def words(self, first: int, calls: int) -> np.ndarray:
        start = _philox.Start(self._start.key, self._start.base, self._start.first + first)
        return _philox.words(start, calls)


def _uniforms(words: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """[calls, k] uniforms: 4 per call (float, half) or 2 (double)."""
    if dtype == np.float64:
        return np.stack(
            [
                _philox.uint64_to_double(words[:, 0], words[:, 1]),
                _philox.uint64_to_double(words[:, 2], words[:, 3]),
            ],
            1,
        )
    if dtype == np.float16:
        return _philox.uint16_to_half(words)
    return _philox.uint32_to_float(words)


def _normals(words: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    if dtype == np.float64:
        d0, d1 = _philox.box_muller_double(words)
        return np.stack([d0, d1], 1)
    f0, f1 = _philox.box_muller_float(words[:, 0], words[:, 1])
    f2, f3 = _philox.box_muller_float(words[:, 2], words[:, 3])
    return np.stack([f0, f1, f2, f3], 1).astype(dtype)


def _first_accepted(
    accept: np.ndarray, need: int, calls_per_group: int, what: str
) -> tuple[np.ndarray, int] | None:
    """Indices of the first `need` accepted candidates (flat, in stream order) and the calls
    consumed through the group holding the last; None when more candidates are needed."""
    flat = accept.reshape(-1)
    taken = np.flatnonzero(flat)
    limit = taken[need - 1] if taken.size >= need else flat.size
    # A run of more than kMaxIterations rejections is TF's failure to accept a sample.
    marks = np.concatenate([[-1], taken[taken < limit], [limit]])
    if marks.size > 1 and int(np.max(np.diff(marks)) - 1) >= _MAX_ITERATIONS:
        raise errors.InternalError(
            None, None, f"TruncatedNormal {what} rejection sampler failed to accept a sample."
        )
    if taken.size < need:
        return None
    per_group = accept.shape[1]
    groups = int(taken[need - 1]) // per_group + 1
    return taken[:need], groups * calls_per_group


def _draw_batch(
    stream: _Stream,
    need: int,
    dtype: np.dtype[Any],
    mean: Any,
    stddev: Any,
    minval: Any,
    maxval: Any,
) -> np.ndarray:
    """`need` samples of one batch, advancing the stream as TF's sampler does."""
    t = dtype.type
    if (np.isinf(minval) and minval < 0) or maxval < mean:
        minval, maxval = maxval, minval
        stddev = -stddev
    norm_min = t((minval - mean) / stddev)
    norm_max = t((maxval - mean) / stddev)
    sqrt_factor = (
        t(math.sqrt(float(t(norm_min * norm_min) + t(4)))) if np.isfinite(norm_min) else t(np.inf)
    )
    with np.errstate(all="ignore"):
        cutoff = (
            t(
                t(2)
                * t(math.exp(float(t(0.5) + t(norm_min * t(norm_min - sqrt_factor)) / t(4))))
                / t(norm_min + sqrt_factor)
            )
            if np.isfinite(norm_min)
            else t(0)
        )
        diff = t(norm_max - norm_min)
    if (norm_min < -_RANDN_BOUND and norm_max >= 0) or (norm_max > _RANDN_BOUND and norm_min <= 0):
        mode = "randn"
        calls_per_group = 1
    elif diff < cutoff:
        mode = "uniform"
        calls_per_group = 2
    else:
        mode = "exponential"
        calls_per_group = 1
    groups = max(4, need)  # most samplers accept about half their candidates
    while True:
        words = stream.words(stream.position, groups * calls_per_group)
        with np.errstate(all="ignore"):
            if mode == "randn":
                z = _normals(words, dtype)
                accept = (z >= norm_min) & (z <= norm_max)
            elif mode == "uniform":
                pairs = words.reshape(groups, 2, 4)
                rand = _uniforms(pairs[:, 0], dtype)
                u = _uniforms(pairs[:, 1], dtype)
                z = (rand * diff + norm_min).astype(dtype)
                plus = t(0) if norm_min < 0 else t(norm_min * norm_min)
                g = ((plus - z * z) / t(2)).astype(dtype)
                accept = u <= _as(dtype, np.exp(g.astype(np.float64)))
            else:
                alpha = t(t(norm_min + t(math.sqrt(float(t(norm_min * norm_min) + t(4))))) / t(2))
                rand = _uniforms(words, dtype)
                r, u = rand[:, 0::2], rand[:, 1::2]
                z = (-_as(dtype, np.log(r.astype(np.float64))) / alpha + norm_min).astype(dtype)
                x = (alpha - z) if norm_min < alpha else np.full_like(z, t(norm_min - alpha))
                g = _as(dtype, np.exp((-x * x / t(2)).astype(dtype).astype(np.float64)))
                accept = (u <= g) & (z < norm_max)
        found = _first_accepted(accept, need, calls_per_group, _SAMPLER_NAMES[mode])
        if found is not None:
            picks, calls = found
            stream.position += calls
            chosen = z.reshape(-1)[picks]
            return (chosen * t(stddev) + t(mean)).astype(dtype)
        groups *= 2


_SAMPLER_NAMES = {"randn": "randn", "uniform": "uniform", "exponential": "exponential distribution"}


def _vector_shape(value: Any) -> list[int]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise invalid(f"Input shape should be a vector, got shape: {shape_str(arr.shape)}")
    return [int(d) for d in arr]


_PARAMS = ("means", "stddevs", "minvals", "maxvals")


@kernel("ParameterizedTruncatedNormal", devices=("CPU",))
def parameterized_truncated_normal(node: Any, xp: Any) -> Compute:
    gen = _Generator(node)
    dtype = np.dtype(node.attrs["dtype"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = _vector_shape(ins[0])
        if any(d < 0 for d in shape):
            raise invalid(f"Dimension {min(shape)} must be >= 0")
        memory_budget.check_shape(shape, dtype, "ParameterizedTruncatedNormal's output")
        num_batches = shape[0] if shape else 1
        per_batch = int(np.prod(shape[1:], dtype=np.int64))
        size = num_batches * per_batch
        params = [np.asarray(v, dtype=dtype) for v in ins[1:5]]
        for p, what in zip(params, _PARAMS):
            if p.ndim > 1:
                raise invalid(
                    f"Input {what} should be a scalar or vector, got shape: {shape_str(p.shape)}"
                )
        if all(p.ndim == 0 or p.shape[0] == 1 for p in params[:2]) and all(
            p.ndim == 0 for p in params[2:]
        ):
            # One set of parameters: TF cuts the output in batches of 100.
            per_batch = _DESIRED_BATCH_SIZE
            num_batches = -(-size // per_batch)
        else:
            for p, what in zip(params, _PARAMS):
                if p.ndim and p.shape[0] not in (1, num_batches):
                    raise invalid(
                        f"Input {what} should have length 1 or shape[0], got shape: "
                        f"{shape_str(p.shape)}"
                    )
        flat = [p.reshape(-1) for p in params]
        stream = _Stream(gen.reserve(num_batches * 2 * _MAX_ITERATIONS * (per_batch + 3) // 4))
        out = np.empty(size, dtype=dtype)
        for b in range(num_batches):
            mean, stddev, minval, maxval = (f[0] if f.size == 1 else f[b] for f in flat)
            if not (
                stddev > 0 and minval < maxval and (np.isfinite(minval) or np.isfinite(maxval))
            ):
                raise invalid("Invalid parameters")
            lo, hi = b * per_batch, min((b + 1) * per_batch, size)
            if hi > lo:
                out[lo:hi] = _draw_batch(stream, hi - lo, dtype, mean, stddev, minval, maxval)
        return (xp.asarray(out.reshape(shape)),)

    return compute
