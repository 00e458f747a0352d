"""The pooling sequences of FractionalMaxPool / FractionalAvgPool, drawn as TF's
fractional_pool_common draws them: a GuardedPhiloxRandom made from (seed, seed2) (key from
seed, counter from seed2), one reservation per dimension, a random offset (pseudo_random) or
a shuffle of the window sizes (random). The same seeds give TF's own sequences."""

from __future__ import annotations

import math
import secrets

import numpy as np

from tfcluster.kernels import _philox

_MASK64 = (1 << 64) - 1


class _Generator:
    """TF's PhiloxRandom(seed_lo, seed_hi) with GuardedPhiloxRandom's reservations."""

    def __init__(self, seed: int, seed2: int) -> None:
        seed &= _MASK64
        seed2 &= _MASK64
        self._key = (seed & 0xFFFFFFFF, seed >> 32)
        self._base = [0, 0, seed2 & 0xFFFFFFFF, seed2 >> 32]
        self._calls = 0  # 128-bit outputs handed out so far

    def reserve32(self, samples: int) -> _Stream:
        """A stream of `samples` 32-bit words (rounded up to whole calls), as
        ReserveSamples32: the generator moves past them."""
        calls = (samples + 3) // 4
        first = self._calls
        self._calls += calls
        return _Stream(self._key, self._base, first)


class _Stream:
    """SimplePhilox over a reserved generator: 32-bit words, four per call, in order."""

    def __init__(self, key: tuple[int, int], base: list[int], first: int) -> None:
        self._key, self._base, self._next_call = key, base, first
        self._words: list[int] = []

    def rand32(self) -> int:
        if not self._words:
            counters = _philox.counters_from(self._base, np.array([self._next_call], np.uint64))
            self._words = [int(w) for w in _philox.philox(counters, self._key)[0]]
            self._next_call += 1
        return self._words.pop(0)

    def rand_double(self) -> float:
        x0, x1 = self.rand32(), self.rand32()
        value = _philox.uint64_to_double(np.array([x0], np.uint32), np.array([x1], np.uint32))
        return float(value[0])

    def uniform(self, n: int) -> int:
        return self.rand32() % n


def _pseudo_random(size: int, out: int, gen: _Generator) -> list[int]:
    alpha = size / out
    k = size // out
    u_max1 = (k + 2) / alpha - 1
    u_max2 = (size + 1 - k) / alpha - (out - 1)
    max_u = min(u_max1, u_max2)
    u = gen.reserve32(2).rand_double() * max_u
    cum = [1] + [math.ceil(alpha * (i + u)) for i in range(1, out)] + [size + 1]
    return [cum[i + 1] - cum[i] for i in range(out)]


def _random(size: int, out: int, gen: _Generator) -> list[int]:
    k = size // out
    diff = [k + 1] * (size % out) + [k] * (out - size % out)
    stream = gen.reserve32(len(diff))
    for i in range(len(diff) - 1):
        j = i + stream.uniform(len(diff) - i)
        diff[i], diff[j] = diff[j], diff[i]
    return diff


def generator(seed: int, seed2: int, deterministic: bool) -> _Generator:
    """The op's generator: from its seeds when deterministic (random ones when both are 0),
    else from fresh random seeds."""
    if not deterministic or (seed == 0 and seed2 == 0):
        seed, seed2 = secrets.randbits(64), secrets.randbits(64)
    return _Generator(seed, seed2)


def pooling_sequence(size: int, out: int, gen: _Generator, pseudo_random: bool) -> np.ndarray:
    """The cumulative window boundaries [0, ..., size] of one dimension (out + 1 values)."""
    if size % out == 0:
        # Even windows; TF still draws (and discards) this dimension's random numbers.
        gen.reserve32(2 if pseudo_random else out)
        diff = [size // out] * out
    elif pseudo_random:
        diff = _pseudo_random(size, out, gen)
    else:
        diff = _random(size, out, gen)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)
