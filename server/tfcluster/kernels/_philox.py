"""TensorFlow's counter-based Philox4x32-10 generator and its distributions, vectorised in
numpy, so the random ops give TF's own numbers for a given seed.

Every call of the generator maps a 128-bit counter (and a 64-bit key) to four 32-bit words;
the stateless ops derive key and counter from their seed as TF's GenerateKey does, the
stateful ops (tf.random_normal, ...) take the key from `seed` and the counter from `seed2`
as GuardedPhiloxRandom does; output group g (of 4 floats, or 2 doubles) then comes from the
counter advanced g times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tfcluster.kernels import _libm_float

_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


# Up to this many counters go through Python integers: numpy's per-call cost dominates
# small draws (a dropout mask of a few values, a seed scramble) by ten times.
_SMALL = 8


def _philox_small(counters: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    out = []
    for row in counters.tolist():
        c0, c1, c2, c3 = (int(w) for w in row)
        k0, k1 = int(key[0]), int(key[1])
        for round_ in range(10):
            p0 = 0xD2511F53 * c0
            p1 = 0xCD9E8D57 * c2
            c0, c1, c2, c3 = (
                (p1 >> 32) ^ c1 ^ k0,
                p1 & 0xFFFFFFFF,
                (p0 >> 32) ^ c3 ^ k1,
                p0 & 0xFFFFFFFF,
            )
            if round_ < 9:
                k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
                k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
        out.append((c0, c1, c2, c3))
    return np.array(out, dtype=np.uint32).reshape(-1, 4)


# What TF adds to the key words after each round (round r uses key + r * these), and the
# round's multipliers, ordered for the words they multiply (c2, c0): see philox.
_KEY_STEPS: np.ndarray = np.array([[0x9E3779B9], [0xBB67AE85]], np.uint64) * np.arange(
    10, dtype=np.uint64
)
_MULTIPLIERS = np.array([[0xCD9E8D57], [0xD2511F53]], dtype=np.uint64)


def philox(counters: np.ndarray, key: tuple[int, int]) -> np.ndarray:
    """The four output words for each row of `counters` ([n, 4] uint32)."""
    if counters.shape[0] <= _SMALL:
        return _philox_small(counters, key)
    # Words (c0, c2) in one [2, n] uint64 array, (c1, c3) in another: a round is five numpy
    # calls on both pairs at once, with no casts (a sampler or a dropout mask draws a few
    # hundred calls, where each numpy call's fixed cost is what counts: half the calls of one
    # word at a time). Words stay below 2**32, so a word times a 32-bit multiplier fits in
    # 64 bits.
    words = counters.T.astype(np.uint64)
    even, odd = words[0::2].copy(), words[1::2].copy()
    swapped = even[::-1]  # (c2, c0)
    product = np.empty_like(even)
    k = np.array([[int(key[0]) & 0xFFFFFFFF], [int(key[1]) & 0xFFFFFFFF]], dtype=np.uint64)
    round_keys = list(((k + _KEY_STEPS) & _MASK32).T.reshape(10, 2, 1))
    for round_key in round_keys:
        np.multiply(swapped, _MULTIPLIERS, out=product)  # (p1, p0) = (c2 * M4B, c0 * M4A)
        # (c0, c2) <- (hi(p1) ^ c1 ^ k0, hi(p0) ^ c3 ^ k1); (c1, c3) <- (lo(p1), lo(p0))
        np.right_shift(product, _SHIFT32, out=even)
        even ^= odd
        even ^= round_key
        np.bitwise_and(product, _MASK32, out=odd)
    out = np.empty((counters.shape[0], 4), dtype=np.uint32)
    out[:, 0::2] = even.T
    out[:, 1::2] = odd.T
    return out


def key_and_counter(seed: tuple[int, int]) -> tuple[tuple[int, int], list[int]]:
    """TF's GenerateKey: the seed pair scrambled through one Philox call."""
    s0, s1 = (int(s) & 0xFFFFFFFFFFFFFFFF for s in seed)
    counter = np.array([[s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32]], np.uint32)
    mix = philox(counter, (0x3EC8F720, 0x02461E29))[0]
    return (int(mix[0]), int(mix[1])), [0, 0, int(mix[2]), int(mix[3])]


def counters_from(base: list[int], offsets: np.ndarray) -> np.ndarray:
    """base (4 words, least significant first) plus each offset, as 128-bit additions."""
    low = (np.uint64(base[0]) | (np.uint64(base[1]) << np.uint64(32))) + offsets.astype(np.uint64)
    # A carry out of the low 64 bits goes into the high words.
    carry = (low < offsets.astype(np.uint64)).astype(np.uint64)
    high = (np.uint64(base[2]) | (np.uint64(base[3]) << np.uint64(32))) + carry
    return np.stack(
        [
            (low & _MASK32).astype(np.uint32),
            (low >> np.uint64(32)).astype(np.uint32),
            (high & _MASK32).astype(np.uint32),
            (high >> np.uint64(32)).astype(np.uint32),
        ],
        axis=1,
    )


@dataclass(frozen=True)
class Start:
    """Where a draw begins in a Philox stream: the key, the base counter (4 words, least
    significant first) and how many generator calls into it."""

    key: tuple[int, int]
    base: tuple[int, int, int, int]
    first: int = 0


Seed = tuple[int, int] | Start


def stateless_start(seed: tuple[int, int]) -> Start:
    """The stateless ops' stream: key and counter scrambled from the seed pair."""
    key, base = key_and_counter(seed)
    return Start(key, (base[0], base[1], base[2], base[3]))


def stateful_start(seed: int, seed2: int, first: int) -> Start:
    """GuardedPhiloxRandom's stream, PhiloxRandom(seed, seed2): the key is `seed`, the
    counter's high words are `seed2`; `first` calls were reserved by earlier draws."""
    seed &= 0xFFFFFFFFFFFFFFFF
    seed2 &= 0xFFFFFFFFFFFFFFFF
    return Start((seed & 0xFFFFFFFF, seed >> 32), (0, 0, seed2 & 0xFFFFFFFF, seed2 >> 32), first)


def _start(seed: Seed) -> Start:
    return seed if isinstance(seed, Start) else stateless_start(seed)


def words(seed: Seed, calls: int) -> np.ndarray:
    """[calls, 4] words of consecutive generator calls from where `seed` starts."""
    start = _start(seed)
    offsets = np.arange(start.first, start.first + calls, dtype=np.uint64)
    return philox(counters_from(list(start.base), offsets), start.key)


def uint32_to_float(x: np.ndarray) -> np.ndarray:
    """A float32 in [0, 1) from the 23 low bits, as TF's Uint32ToFloat."""
    bits = (x & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def uint64_to_double(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    mantissa = ((x0 & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)) | x1.astype(np.uint64)
    bits = mantissa | (np.uint64(1023) << np.uint64(52))
    return bits.view(np.float64) - 1.0


def uint16_to_half(x: np.ndarray) -> np.ndarray:
    bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(uint32_to_float(x0), np.float32(1.0e-7))
    # C's `2.0f * M_PI * u` is a double product (M_PI is a double), rounded once to float.
    v1 = (2.0 * math.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    # glibc's logf/sincosf, as TF calls them (not correctly rounded: see _libm_float).
    radius = np.sqrt(np.float32(-2.0) * _libm_float.logf(u1))
    sin, cos = _libm_float.sincosf(v1)
    # TF's sincos(v1, &f1, &f0): the sine comes first.
    return sin * radius, cos * radius


def box_muller_double(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(uint64_to_double(w[:, 0], w[:, 1]), 1.0e-7)
    v1 = 2.0 * math.pi * uint64_to_double(w[:, 2], w[:, 3])
    radius = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * radius, np.cos(v1) * radius


def uniform(seed: Seed, size: int, dtype: np.dtype) -> np.ndarray:  # type: ignore[type-arg]
    """TF's UniformDistribution: 4 floats (or halves) or 2 doubles per call."""
    if dtype == np.float64:
        w = words(seed, (size + 1) // 2)
        out = np.stack([uint64_to_double(w[:, 0], w[:, 1]), uint64_to_double(w[:, 2], w[:, 3])], 1)
        return out.reshape(-1)[:size]
    flat = words(seed, (size + 3) // 4).reshape(-1)
    values = uint16_to_half(flat) if dtype == np.float16 else uint32_to_float(flat)
    return values[:size]


def words64(seed: Seed, size: int) -> np.ndarray:
    """`size` 64-bit draws, each two consecutive 32-bit words (low word first), as TF's
    64-bit integer distributions take them."""
    pairs = words(seed, (size + 1) // 2).reshape(-1, 2)
    return (pairs[:, 0].astype(np.uint64) | (pairs[:, 1].astype(np.uint64) << np.uint64(32)))[:size]


def uniform_int(seed: Seed, size: int, low: int, high: int, dtype: np.dtype) -> np.ndarray:  # type: ignore[type-arg]
    """lo + bits % (hi - lo): 32 bits per int32 (4 per call), 64 per int64 (2 per call)."""
    span = np.uint64(high - low)
    if dtype == np.int64:
        return (np.int64(low) + (words64(seed, size) % span).astype(np.int64))[:size]
    flat = words(seed, (size + 3) // 4).reshape(-1).astype(np.uint64)
    return (np.int64(low) + (flat % span).astype(np.int64)).astype(dtype)[:size]


def normal(seed: Seed, size: int, dtype: np.dtype) -> np.ndarray:  # type: ignore[type-arg]
    """TF's NormalDistribution (Box-Muller): 4 floats or 2 doubles per call."""
    if dtype == np.float64:
        f0, f1 = box_muller_double(words(seed, (size + 1) // 2))
        return np.stack([f0, f1], 1).reshape(-1)[:size]
    w = words(seed, (size + 3) // 4)
    f0, f1 = box_muller_float(w[:, 0], w[:, 1])
    f2, f3 = box_muller_float(w[:, 2], w[:, 3])
    out = np.stack([f0, f1, f2, f3], 1).reshape(-1)[:size]
    return out.astype(np.float16) if dtype == np.float16 else out


# Each output group of the truncated normal may use up to this many words: TF skips the
# generator by a fixed 256 samples per output, so groups are independent.
_RESERVED_PER_OUTPUT = 256


def truncated_normal(seed: Seed, size: int, dtype: np.dtype) -> np.ndarray:  # type: ignore[type-arg]
    """TF's TruncatedNormalDistribution: normals with |z| >= 2 rejected, in stream order;
    group g of outputs starts 256 * (group size) samples into the stream."""
    group = 2 if dtype == np.float64 else 4
    groups = (size + group - 1) // group
    skip = group * _RESERVED_PER_OUTPUT // 4  # generator calls per output group
    start = _start(seed)
    key, base = start.key, list(start.base)
    out = np.empty((groups, group), dtype=np.float64 if dtype == np.float64 else np.float32)
    filled = np.zeros(groups, dtype=np.int64)
    calls_done = 0
    pending = np.arange(groups)
    while pending.size:
        # Two more generator calls per pending group per pass (almost always enough at once).
        calls = 2
        offsets = pending[:, None].astype(np.uint64) * np.uint64(skip) + np.arange(
            start.first + calls_done, start.first + calls_done + calls, dtype=np.uint64
        )
        w = philox(counters_from(base, offsets.reshape(-1)), key).reshape(pending.size, calls, 4)
        if dtype == np.float64:
            d0, d1 = box_muller_double(w.reshape(-1, 4))
            samples = np.stack([d0, d1], 1).reshape(pending.size, -1)
        else:
            flat = w.reshape(pending.size, -1)
            f0, f1 = box_muller_float(flat[:, 0::2], flat[:, 1::2])
            samples = np.stack([f0, f1], -1).reshape(pending.size, -1)
        for col in range(samples.shape[1]):
            take = (np.abs(samples[:, col]) < 2.0) & (filled[pending] < group)
            rows = pending[take]
            out[rows, filled[rows]] = samples[take, col]
            filled[rows] += 1
        calls_done += calls
        pending = pending[filled[pending] < group]
    values = out.reshape(-1)[:size]
    return values.astype(np.float16) if dtype == np.float16 else values
