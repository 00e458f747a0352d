"""TF's SimplePhilox: 32-bit words taken one at a time from a Philox stream (its
SingleSampleAdapter), and the draws TF's range samplers make from them."""

from __future__ import annotations

import numpy as np

from tfcluster.kernels import _philox

_BLOCK_CALLS = 256  # generator calls computed at once; the stream is read in order


class PhiloxStream:
    """Reads a GuardedPhiloxRandom reservation word by word, past its end if asked (as TF
    does: a rejection loop that takes more words than reserved reuses the next step's)."""

    def __init__(self, start: _philox.Start) -> None:
        self._start = start
        self._next_call = start.first
        self._buffer = np.empty(0, dtype=np.uint32)

    def words(self, n: int) -> np.ndarray:
        """The next n 32-bit words."""
        while self._buffer.size < n:
            needed = (n - self._buffer.size + 3) // 4
            # The first refill computes what is asked (a sampler's one batch of draws mostly
            # suffices); later ones a block, for readers that come back word by word.
            calls = max(_BLOCK_CALLS, needed) if self._next_call > self._start.first else needed
            here = _philox.Start(self._start.key, self._start.base, self._next_call)
            self._next_call += calls
            self._buffer = np.concatenate([self._buffer, _philox.words(here, calls).reshape(-1)])
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def rand32(self) -> int:
        """SimplePhilox::Rand32: the next word."""
        return int(self.words(1)[0])

    def rand_float(self) -> np.float32:
        """SimplePhilox::RandFloat: a float32 in [0, 1) from one word's 23 low bits."""
        return np.float32(_philox.uint32_to_float(self.words(1))[0])

    def uniform32(self, n: int) -> int:
        """SimplePhilox::Uniform(n): TF's ExactUniformInt over 32-bit words, in [0, n)
        (a power of two masks one word; otherwise words below 2**32 mod n are rejected)."""
        if n == 0:
            return self.rand32()
        if n & (n - 1) == 0:
            return self.rand32() & (n - 1)
        reject_below = ((0xFFFFFFFF % n) + 1) % n
        while True:
            word = self.rand32()
            if word >= reject_below:
                return word % n

    def random(self, n: int) -> np.ndarray:
        """n RandDouble()s in [0, 1): two words each, the first giving the mantissa's top bits."""
        w = self.words(2 * n).reshape(n, 2)
        return _philox.uint64_to_double(w[:, 0], w[:, 1])

    def integers(self, low: int, high: int, size: int, dtype: type = np.int64) -> np.ndarray:
        """size Uniform64(high)s (low is 0): a 64-bit word, low half first, modulo high."""
        if low != 0:
            raise ValueError("PhiloxStream draws integers from 0")
        w = self.words(2 * size).reshape(size, 2).astype(np.uint64)
        r64 = w[:, 0] | (w[:, 1] << np.uint64(32))
        return (r64 % np.uint64(high)).astype(dtype)
