"""Random kernels with TF1 seed semantics and TF's own numbers.

The op kernels are stateful: a session binds each random node once and keeps its generator,
so every run draws new numbers, and the same (seed, seed2) in a new session replays the same
sequence. The generator is TF's GuardedPhiloxRandom: PhiloxRandom(seed, seed2), each run
reserving 256 generator calls per output (TF's conservative reservation), so a seeded graph
gives the values TensorFlow gives. Both seeds zero means "nondeterministic", as in TF.

Numbers are drawn on the host on either device, then moved to the kernel's device
(xp.asarray): a seeded graph yields the same numbers on the CPU and a GPU, at the cost of one
host-to-device copy per draw, which initializers and dropout masks afford.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors, memory_budget
from tfcluster.kernels import _philox
from tfcluster.kernels.common import Compute
from tfcluster.kernels.registry import kernel

# TF reserves this many 128-bit samples per output of each draw, whatever the distribution
# needs (GuardedPhiloxRandom::ReserveRandomOutputs(size, 256)).
_CALLS_PER_OUTPUT = 256


class _Generator:
    """One random node's GuardedPhiloxRandom: where its next draw starts."""

    def __init__(self, node: Any) -> None:
        seed = int(node.attrs.get("seed", 0))
        seed2 = int(node.attrs.get("seed2", 0))
        if seed == 0 and seed2 == 0:
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        self._seed, self._seed2 = seed, seed2
        self._calls = 0
        self._lock = threading.Lock()

    def reserve(self, calls: int) -> _philox.Start:
        """The start of `calls` generator calls; the next draw begins after them."""
        with self._lock:
            first = self._calls
            self._calls += calls
        return _philox.stateful_start(self._seed, self._seed2, first)

    def reserve_outputs(self, outputs: int) -> _philox.Start:
        return self.reserve(outputs * _CALLS_PER_OUTPUT)


def _generator(node: Any) -> np.random.Generator:
    """A numpy generator seeded from the node's (seed, seed2), for kernels whose draws do not
    follow TF's streams (the candidate samplers)."""
    seed = int(node.attrs.get("seed", 0))
    seed2 = int(node.attrs.get("seed2", 0))
    if seed == 0 and seed2 == 0:
        return np.random.default_rng()
    return np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, seed2 & 0xFFFFFFFFFFFFFFFF])


def _shape(value: Any) -> list[int]:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape {list(arr.shape)}"
        )
    dims = [int(d) for d in arr]
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(None, None, f"Dimension {min(dims)} must be >= 0")
    return dims


Draw = Callable[[_philox.Start, int, Any, list[Any]], np.ndarray]


def _sampler(draw: Draw) -> Callable[[Any, Any], Compute]:
    """A kernel factory around draw(start, size, dtype, inputs)."""

    def factory(node: Any, xp: Any) -> Compute:
        gen = _Generator(node)
        out_attr = "Tout" if "Tout" in node.attrs else "dtype"
        np_dtype = np.dtype(node.attrs[out_attr].as_numpy_dtype)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shape = _shape(ins[0])
            memory_budget.check_shape(shape, np_dtype, f"{node.op}'s output")
            size = int(np.prod(shape, dtype=np.int64))
            values = draw(gen.reserve_outputs(size), size, np_dtype, ins)
            return (xp.asarray(values.astype(np_dtype, copy=False).reshape(shape)),)

        return compute

    return factory


def _uniform_int(start: _philox.Start, size: int, dtype: Any, ins: list[Any]) -> np.ndarray:
    lo, hi = np.asarray(ins[1]), np.asarray(ins[2])
    if lo.ndim or hi.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"minval must be 0-D, got shape {list(lo.shape)}; maxval {list(hi.shape)}"
        )
    if int(lo) >= int(hi):
        raise errors.InvalidArgumentError(
            None, None, f"Need minval < maxval: {int(lo)} >= {int(hi)}"
        )
    return _philox.uniform_int(start, size, int(lo), int(hi), dtype)


# The shape (and the bounds of RandomUniformInt) are host inputs.
kernel("RandomStandardNormal", all_host=True)(
    _sampler(lambda start, size, dtype, _: _philox.normal(start, size, dtype))
)
kernel("TruncatedNormal", all_host=True)(
    _sampler(lambda start, size, dtype, _: _philox.truncated_normal(start, size, dtype))
)
kernel("RandomUniform", all_host=True)(
    _sampler(lambda start, size, dtype, _: _philox.uniform(start, size, dtype))
)
kernel("RandomUniformInt", all_host=True)(_sampler(_uniform_int))


def _shuffled_order(start: _philox.Start, n: int) -> np.ndarray:
    """TF's RandomShuffle: for i in 0..n-2 swap i with i + (next 32-bit word) % (n - i)."""
    draws = _philox.words(start, (n - 1 + 3) // 4).reshape(-1)[: n - 1].astype(np.uint64)
    spans = np.arange(n, 1, -1, dtype=np.uint64)
    targets = (np.arange(n - 1, dtype=np.uint64) + draws % spans).tolist()
    order = list(range(n))
    # Each swap sees the ones before it: sequential by nature, so on Python ints.
    for i, j in enumerate(targets):
        order[i], order[j] = order[j], order[i]
    return np.asarray(order, dtype=np.int64)


@kernel("RandomShuffle")
def random_shuffle(node: Any, xp: Any) -> Compute:
    gen = _Generator(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim == 0 or x.shape[0] <= 1:
            return (x,)
        n = int(x.shape[0])
        # ReserveSamples32(n - 1): whole calls of four words.
        order = _shuffled_order(gen.reserve((n - 1 + 3) // 4), n)
        return (x[xp.asarray(order)],)

    return compute
