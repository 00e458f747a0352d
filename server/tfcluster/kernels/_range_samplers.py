"""The distributions behind TF's candidate samplers (its core/kernels/range_sampler), on the host
with numpy: each sampler draws values in [0, range) and says the probability of a value, both
exactly as TF defines them (probabilities in float32 as TF computes them). In a kernel every
sampler draws from TF's Philox stream (kernels/_philox_stream.py: the same values as TF for
the same seeds); given a numpy generator instead, from that.

`sample_batch` is TF's SampleBatchGetExpectedCount: num_sampled draws (with rejection of
repeats when unique), and the expected count of each sampled and true value, from the number
of draws that rejection took."""

from __future__ import annotations

import math
import threading

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import _libm_float
from tfcluster.kernels._philox import uint32_to_float
from tfcluster.kernels._philox_stream import PhiloxStream

_INT32_MAX = 2**31 - 1
_F32 = np.float32


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


class RangeSampler:
    """Values in [0, range_): draws and their probabilities."""

    needs_updates = False

    def __init__(self, range_: int) -> None:
        self.range_ = int(range_)
        self.lock = threading.Lock()

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        raise NotImplementedError

    def probability(self, values: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def support_size(self) -> int:
        """How many values can be drawn (a unique batch larger than this never ends)."""
        return self.range_

    def update(self, values: np.ndarray) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not learn")


class UniformSampler(RangeSampler):
    def __init__(self, range_: int) -> None:
        super().__init__(range_)
        self._p = _F32(1.0 / self.range_)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.integers(0, self.range_, size=n, dtype=np.int64)

    def probability(self, values: np.ndarray) -> np.ndarray:
        return np.full(values.shape, self._p, dtype=_F32)


class LogUniformSampler(RangeSampler):
    """P(k) = log((k + 2) / (k + 1)) / log(range + 1): Zipf-like, for ids sorted by frequency.
    A draw is floor(exp(u * log(range + 1))) - 1 for u uniform in [0, 1)."""

    def __init__(self, range_: int) -> None:
        super().__init__(range_)
        self._log_range = math.log(self.range_ + 1)  # as TF computes it

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        values = np.exp(rng.random(n) * self._log_range).astype(np.int64) - 1
        return values % self.range_  # roundoff could reach range itself

    def probability(self, values: np.ndarray) -> np.ndarray:
        v = values.astype(np.float64)
        return (np.log((v + 2.0) / (v + 1.0)) / self._log_range).astype(_F32)


class UnigramSampler(RangeSampler):
    """Learned unigram: every value starts with weight 1; each true class seen adds 1 to its
    value's weight after the batch is drawn. P(k) = weight(k) / total weight."""

    needs_updates = True

    def __init__(self, range_: int) -> None:
        super().__init__(range_)
        if self.range_ >= _INT32_MAX:
            raise _invalid(
                f"range_max must be less than {_INT32_MAX} for unigram samplers, got {range_}"
            )
        self._weights = np.ones(self.range_, dtype=np.int64)
        self._total = self.range_
        self._cumulative: np.ndarray | None = None

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self._cumulative is None:
            self._cumulative = np.cumsum(self._weights)
        if isinstance(rng, PhiloxStream):
            picks = _unbiased_uniform(rng, self._total, n)
        else:
            picks = rng.integers(0, self._total, size=n, dtype=np.int64)
        # TF's WeightedPicker descends its tree of sums: the value whose cumulative weight
        # first exceeds the pick.
        return np.searchsorted(self._cumulative, picks, side="right").astype(np.int64)

    def probability(self, values: np.ndarray) -> np.ndarray:
        return self._weights[values].astype(_F32) / _F32(self._total)

    def update(self, values: np.ndarray) -> None:
        room = _INT32_MAX - self._total
        values = values.reshape(-1)[: max(room, 0)]
        if values.size:
            self._weights += np.bincount(values, minlength=self.range_)
            self._total += int(values.size)
            self._cumulative = None


def _unbiased_uniform(stream: PhiloxStream, bound: int, n: int) -> np.ndarray:
    """n of TF's WeightedPicker UnbiasedUniform(bound) draws: a word's low bits for a power of
    two, else word % bound of the words at or above (2^32 - 1) % bound + 1 (the ones below
    are skipped, so every residue is equally likely), in stream order."""
    if bound & (bound - 1) == 0:
        return (stream.words(n) & np.uint32(bound - 1)).astype(np.int64)
    reject_below = np.uint32((0xFFFFFFFF % bound) + 1)
    kept = np.empty(0, dtype=np.uint32)
    while kept.size < n:
        words = stream.words(n - kept.size)
        kept = np.concatenate([kept, words[words >= reject_below]])
    return (kept % np.uint32(bound)).astype(np.int64)


class FixedUnigramSampler(RangeSampler):
    """Weights given (a list, or the last column of a CSV file), raised to `distortion`; the
    first num_reserved_ids ids get weight 0. With num_shards > 1 this sampler holds only the
    ids with id % num_shards == shard, numbered from 0 in this shard. As TF does, the ids of
    the weights count on from the number of reserved ids that fell in this shard."""

    def __init__(
        self,
        range_: int,
        weights: list[float] | None,
        vocab_lines: list[str] | None,
        distortion: float,
        num_reserved_ids: int,
        num_shards: int,
        shard: int,
    ) -> None:
        super().__init__(range_)
        kept = [_F32(0.0) for word in range(num_reserved_ids) if word % num_shards == shard]
        n_reserved = len(kept)
        word = n_reserved
        dist = _F32(distortion)
        if vocab_lines is not None:
            for line in vocab_lines:
                if word % num_shards == shard:
                    kept.append(_parse_weight(line))
                word += 1
        else:
            for w in weights or ():
                if word % num_shards == shard:
                    kept.append(_F32(w))
                word += 1
        values = np.asarray(kept, dtype=_F32)
        # TF raises each weight with std::pow of two floats: glibc's powf, not numpy's.
        weights_ = values[n_reserved:]
        values[n_reserved:] = _libm_float.powf(weights_, np.full(weights_.shape, dist, _F32))
        if values.size != self.range_:
            raise _invalid(f"range is {self.range_} must be equal to weights size  {values.size}")
        self._weights = values
        # TF sums the weights one by one in float32.
        self._total = np.cumsum(values, dtype=_F32)[-1] if values.size else _F32(0.0)
        self._cumulative = np.cumsum(values.astype(np.float64))
        self._prob, self._alt = _alias_table(values)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if isinstance(rng, PhiloxStream):
            # TF's DistributionSampler::Sample: RandFloat(), then Uniform(n) picks a bucket.
            w = rng.words(2 * n).reshape(n, 2)
            r = uint32_to_float(w[:, 0])
            idx = (w[:, 1] % np.uint32(self._prob.size)).astype(np.int64)
            return np.where(r < self._prob[idx], idx, self._alt[idx]).astype(np.int64)
        top = self._cumulative[-1]
        picks = rng.random(n) * top
        out = np.searchsorted(self._cumulative, picks, side="right")
        return np.minimum(out, self.range_ - 1).astype(np.int64)

    def probability(self, values: np.ndarray) -> np.ndarray:
        inside = (values >= 0) & (values < self._weights.size)
        w = np.where(inside, self._weights[np.clip(values, 0, max(self._weights.size - 1, 0))], 0)
        return np.where(inside, w.astype(_F32) / self._total, _F32(0.0)).astype(_F32)

    def support_size(self) -> int:
        return int(np.count_nonzero(self._weights))


def _parse_weight(line: str) -> np.float32:
    """The last comma-separated field of a vocabulary line, as a float."""
    field = line.split(",")[-1].strip()
    try:
        return _F32(float(field))
    except ValueError:
        raise _invalid(f"Wrong vocabulary format at line: {line}") from None


def _expected_counts(p: np.ndarray, batch_size: int, num_tries: int) -> np.ndarray:
    """TF's ExpectedCountHelper in float32: p * batch_size when no draw was rejected, else
    the chance of a value appearing in num_tries draws, 1 - (1 - p)^num_tries."""
    if num_tries == batch_size:
        return (p * _F32(batch_size)).astype(_F32)
    # TF calls libm's float log1pf and expm1f (std::log1p/std::expm1 of a float), which are
    # not correctly rounded: glibc's own answers (a double rounded to float was an ulp off
    # for some, and the nce_loss of a word2vec drifted from the first step).
    log_q = _libm_float.log1pf(-np.asarray(p, _F32))
    return -_libm_float.expm1f((_F32(num_tries) * log_q).astype(_F32))


def _alias_table(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TF's DistributionSampler (Walker's alias method): per bucket, the float32 probability of
    keeping it and the id taken otherwise, paired from the back of the low/high lists."""
    n = int(weights.size)
    total = 0.0
    for w in weights:
        total += float(w)  # a double sum, as TF's
    pr = [float(w) * n / total for w in weights] if total > 0 else [0.0] * n
    alt = [-1] * n
    low = [i for i in range(n) if pr[i] < 1.0]
    high = [i for i in range(n) if pr[i] >= 1.0]
    while high and low:
        lo, hi = low.pop(), high.pop()
        alt[lo] = hi
        pr[hi] = pr[hi] - (1.0 - pr[lo])
        (low if pr[hi] < 1.0 else high).append(hi)
    prob = np.asarray(pr, dtype=_F32)
    for i in high + low:  # left over by rounding: certain, and their own alternative
        prob[i] = _F32(1.0)
        alt[i] = i
    return prob, np.asarray(alt, dtype=np.int64)


def _unique_draws(
    sampler: RangeSampler, rng: np.random.Generator, n: int
) -> tuple[np.ndarray, int]:
    """Draws until n distinct values came up: those values in the order drawn, and how many
    draws it took (TF's rejection loop, in chunks)."""
    draws = np.empty(0, dtype=np.int64)
    chunk = max(2 * n, 16)
    while True:
        draws = np.concatenate([draws, sampler.sample(rng, chunk)])
        _, first = np.unique(draws, return_index=True)
        if first.size >= n:
            picked = np.sort(first)[:n]
            return draws[picked], int(picked[-1]) + 1
        chunk *= 2


def sample_batch(
    sampler: RangeSampler,
    rng: np.random.Generator,
    num_sampled: int,
    unique: bool,
    true_classes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sampled [num_sampled] int64, true expected counts, sampled expected counts)."""
    if unique:
        if sampler.support_size() < num_sampled:
            raise _invalid(
                f"Cannot draw {num_sampled} distinct candidates: only "
                f"{sampler.support_size()} have a nonzero probability"
            )
        sampled, num_tries = _unique_draws(sampler, rng, num_sampled)
    else:
        sampled, num_tries = sampler.sample(rng, num_sampled), num_sampled
    true_p = sampler.probability(true_classes.reshape(-1)).reshape(true_classes.shape)
    return (
        sampled,
        _expected_counts(true_p, num_sampled, num_tries),
        _expected_counts(sampler.probability(sampled), num_sampled, num_tries),
    )
