"""Random kernels with TF1 seed semantics.

The op kernels are stateful: a session binds each random node once and keeps its generator,
so every run draws new numbers, and the same (seed, seed2) in a new session replays the same
sequence. Both seeds zero means "nondeterministic", as in TF.

Numbers are drawn on the host with numpy's generators on either device, then moved to the
kernel's device (xp.asarray): a seeded graph yields the same numbers on the CPU and a GPU, at
the cost of one host-to-device copy per draw, which initializers and dropout masks afford.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors, memory_budget
from tfcluster.kernels.common import Compute
from tfcluster.kernels.registry import kernel


def _generator(node: Any) -> np.random.Generator:
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


def _sampler(
    draw: Callable[[np.random.Generator, list[Any], list[int]], np.ndarray],
) -> Callable[[Any, Any], Compute]:
    """A kernel factory around draw(rng, inputs, shape); a lock keeps concurrent steps safe."""

    def factory(node: Any, xp: Any) -> Compute:
        rng = _generator(node)
        lock = threading.Lock()
        out_attr = "Tout" if "Tout" in node.attrs else "dtype"
        np_dtype = np.dtype(node.attrs[out_attr].as_numpy_dtype)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shape = _shape(ins[0])
            # Drawn as float64 or int64 first.
            memory_budget.check_shape(shape, np.dtype(np.float64), f"{node.op}'s output")
            with lock:
                values = draw(rng, ins, shape)
            return (xp.asarray(values.astype(np_dtype, copy=False)),)

        return compute

    return factory


def _standard_normal(rng: np.random.Generator, ins: list[Any], shape: list[int]) -> np.ndarray:
    return rng.standard_normal(shape)


def _truncated_normal(rng: np.random.Generator, ins: list[Any], shape: list[int]) -> np.ndarray:
    """Standard normal values redrawn until they fall within two standard deviations."""
    out = rng.standard_normal(shape)
    flat = out.reshape(-1)
    bad = np.nonzero(np.abs(flat) > 2.0)[0]
    while bad.size:
        flat[bad] = rng.standard_normal(bad.size)
        bad = bad[np.abs(flat[bad]) > 2.0]
    return out


def _uniform(rng: np.random.Generator, ins: list[Any], shape: list[int]) -> np.ndarray:
    return rng.random(shape)


def _uniform_int(rng: np.random.Generator, ins: list[Any], shape: list[int]) -> np.ndarray:
    lo, hi = np.asarray(ins[1]), np.asarray(ins[2])
    if lo.ndim or hi.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"minval must be 0-D, got shape {list(lo.shape)}; maxval {list(hi.shape)}"
        )
    if int(lo) >= int(hi):
        raise errors.InvalidArgumentError(
            None, None, f"Need minval < maxval: {int(lo)} >= {int(hi)}"
        )
    return rng.integers(int(lo), int(hi), size=shape, dtype=np.int64)


# The shape (and the bounds of RandomUniformInt) are host inputs.
kernel("RandomStandardNormal", all_host=True)(_sampler(_standard_normal))
kernel("TruncatedNormal", all_host=True)(_sampler(_truncated_normal))
kernel("RandomUniform", all_host=True)(_sampler(_uniform))
kernel("RandomUniformInt", all_host=True)(_sampler(_uniform_int))


@kernel("RandomShuffle")
def random_shuffle(node: Any, xp: Any) -> Compute:
    rng = _generator(node)
    lock = threading.Lock()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim == 0:
            return (x,)
        with lock:
            order = rng.permutation(x.shape[0])
        return (x[xp.asarray(order)],)

    return compute
