"""Kernels of the Generator ops: TF's Philox stream read from the state variable (counter =
state[0] + 2**64 * state[1], key = state[2]) and the state advanced under the variable's lock,
by 256 generator calls per output as TF advances it, so later draws (in any step) continue
TF's sequence."""

from __future__ import annotations

import secrets
import weakref
from typing import Any

import numpy as np

from tfcluster.framework import errors, memory_budget
from tfcluster.kernels import _philox
from tfcluster.kernels.common import Compute, frozen
from tfcluster.kernels.registry import CPU_ONLY, kernel

_PHILOX = 1
_CALLS_PER_OUTPUT = 256
_MASK64 = (1 << 64) - 1
# State arrays these kernels wrote (by id): TF's kernels leave the variable a buffer of its
# own, which StatefulRandomBinomial's update needs (see kernels/stateful_binomial.py).
RNG_WRITTEN: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _shape(value: Any) -> list[int]:
    dims = [int(d) for d in np.asarray(value).reshape(-1)]
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(None, None, f"Dimension {min(dims)} must be >= 0")
    return dims


def _reserve(ref: Any, algorithm: Any, calls: int, name: str) -> _philox.Start:
    """Where the draw starts; the state variable moves `calls` generator calls on."""
    alg = int(np.asarray(algorithm))
    if alg != _PHILOX:
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported algorithm id: {alg} (tfcluster has Philox, id 1)"
        )
    with ref.lock:
        state = np.asarray(ref.read(name))
        if state.shape != (3,):
            raise errors.InvalidArgumentError(
                None, None, f"The shape of the state of Philox must be [3]; got {list(state.shape)}"
            )
        low, high, key = (int(v) & _MASK64 for v in state)
        counter = low | (high << 64)
        moved = (counter + calls) & ((1 << 128) - 1)
        new = np.array([moved & _MASK64, moved >> 64, key], dtype=np.uint64).view(np.int64)
        ref.value = frozen(new)
        RNG_WRITTEN[id(ref.value)] = ref.value
        ref.generation += 1
    base = (low & 0xFFFFFFFF, low >> 32, high & 0xFFFFFFFF, high >> 32)
    return _philox.Start((key & 0xFFFFFFFF, key >> 32), base)


def _full_int(start: _philox.Start, size: int, dtype: np.dtype) -> np.ndarray:  # type: ignore[type-arg]
    """Every bit random: one 32-bit word per 32-bit output, two per 64-bit one."""
    if dtype.itemsize == 8:
        return _philox.words64(start, size).view(np.int64).astype(dtype)
    return _philox.words(start, (size + 3) // 4).reshape(-1)[:size].view(np.int32).astype(dtype)


def _sampler(draw: Any) -> Any:
    def factory(node: Any, xp: Any) -> Compute:
        np_dtype = np.dtype(node.attrs["dtype"].as_numpy_dtype)
        name = node.name

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shape = _shape(ins[2])
            memory_budget.check_shape(shape, np_dtype, f"{node.op}'s output")
            size = int(np.prod(shape, dtype=np.int64))
            start = _reserve(ins[0], ins[1], size * _CALLS_PER_OUTPUT, name)
            values = draw(start, size, np_dtype, ins)
            return (xp.asarray(np.asarray(values).astype(np_dtype, copy=False).reshape(shape)),)

        return compute

    return factory


def _uniform_int(start: _philox.Start, size: int, dtype: Any, ins: list[Any]) -> np.ndarray:
    lo, hi = int(np.asarray(ins[3])), int(np.asarray(ins[4]))
    if lo >= hi:
        raise errors.InvalidArgumentError(None, None, f"Need minval < maxval: {lo} >= {hi}")
    return _philox.uniform_int(start, size, lo, hi, dtype)


kernel("StatefulStandardNormalV2", devices=CPU_ONLY)(
    _sampler(lambda start, size, dtype, _: _philox.normal(start, size, dtype))
)
kernel("StatefulUniform", devices=CPU_ONLY)(
    _sampler(lambda start, size, dtype, _: _philox.uniform(start, size, dtype))
)
kernel("StatefulTruncatedNormal", devices=CPU_ONLY)(
    _sampler(lambda start, size, dtype, _: _philox.truncated_normal(start, size, dtype))
)
kernel("StatefulUniformFullInt", devices=CPU_ONLY)(
    _sampler(lambda start, size, dtype, _: _full_int(start, size, dtype))
)
kernel("StatefulUniformInt", devices=CPU_ONLY)(_sampler(_uniform_int))


@kernel("RngSkip", devices=CPU_ONLY)
def rng_skip(node: Any, xp: Any) -> Compute:
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        delta = int(np.asarray(ins[2]))
        _reserve(ins[0], ins[1], delta * _CALLS_PER_OUTPUT, name)
        return ()

    return compute


@kernel("NonDeterministicInts", devices=CPU_ONLY)
def non_deterministic_ints(node: Any, xp: Any) -> Compute:
    np_dtype = np.dtype(node.attrs["dtype"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = _shape(ins[0])
        size = int(np.prod(shape, dtype=np.int64))
        raw = np.frombuffer(secrets.token_bytes(size * np_dtype.itemsize), dtype=np_dtype)
        return (raw.reshape(shape).copy(),)

    return compute
