"""The clustering ops of TF 1.15 (clustering_ops.cc): KmeansPlusPlusInitialization (k-means++
seeding, with retries), KMC2ChainInitialization (one k-MC2 Markov chain) and NearestNeighbors
(the k nearest centers of each point by squared euclidean distance). The seeded ops draw from
TF's PhiloxRandom(seed) through SimplePhilox, so they pick TF's points for a seed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.kernels import _philox
from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

_U64 = (1 << 64) - 1


class SimplePhilox:
    """TF's SimplePhilox over PhiloxRandom(seed): 32-bit words, four per generator call."""

    def __init__(self, seed: int) -> None:
        seed &= _U64
        self._key = (seed & 0xFFFFFFFF, seed >> 32)
        self._calls = 0
        self._words: list[int] = []

    def rand32(self) -> int:
        if not self._words:
            counters = _philox.counters_from([0, 0, 0, 0], np.array([self._calls], np.uint64))
            self._words = [int(w) for w in _philox.philox(counters, self._key)[0]]
            self._calls += 1
        return self._words.pop(0)

    def rand64(self) -> int:
        lo = self.rand32()
        return lo | (self.rand32() << 32)

    def rand_float(self) -> np.float32:
        return _philox.uint32_to_float(np.array([self.rand32()], np.uint32))[0]

    def uniform64(self, n: int) -> int:
        """Exactly uniform in [0, n): words below 2**64 mod n are drawn again."""
        rem = (1 << 64) % n
        while True:
            bits = self.rand64()
            if bits >= rem:
                return bits % n


def _scalar(x: Any, what: str) -> int:
    if np.ndim(x) != 0:
        raise invalid(f"Input {what} should be a scalar.")
    return int(x)


def _half_sq_dist(points: np.ndarray, half_norms: np.ndarray, j: int) -> np.ndarray:
    """Half the squared distance of every point to point j (TF's expansion, float32)."""
    return (half_norms - points @ points[j]) + half_norms[j]


def kmeans_plus_plus(points: np.ndarray, num: int, seed: int, retries: int) -> np.ndarray:
    n = points.shape[0]
    half_norms = (np.float32(0.5) * np.sum(points * points, axis=1)).astype(np.float32)
    rng = SimplePhilox(seed)
    sampled: set[int] = set()
    out = np.empty((num, points.shape[1]), np.float32)
    min_dist = np.full(n, np.inf, np.float32)
    cumsum = np.zeros(n, np.float32)

    def draw() -> int:
        if not sampled:
            return rng.uniform64(n)
        while True:
            total = cumsum[n - 1]
            if not total > 0:
                index = rng.uniform64(n)
            else:
                target = rng.rand_float() * total
                index = min(int(np.searchsorted(cumsum, target, side="right")), n - 1)
            if index not in sampled:
                return index

    for i in range(num):
        if i > 0:
            cumsum = np.cumsum(min_dist, dtype=np.float32)
        best, best_potential, best_dist = 0, np.float32(np.inf), min_dist
        for _ in range(1 + retries):
            j = draw()
            new_dist = np.minimum(min_dist, _half_sq_dist(points, half_norms, j))
            potential = np.sum(new_dist, dtype=np.float32)
            if retries == 0 or potential < best_potential:
                best, best_potential, best_dist = j, potential, new_dist
        min_dist = best_dist
        pick = min(best, n - 1)
        out[i] = points[pick]
        sampled.add(pick)
    return out


@kernel("KmeansPlusPlusInitialization", devices=CPU_ONLY)
def kmeans_plus_plus_initialization(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        points, num_t, seed_t, retries_t = (np.asarray(x) for x in ins)
        if points.ndim != 2:
            raise invalid("Input points should be a matrix.")
        num = _scalar(num_t, "num_to_sample")
        seed = _scalar(seed_t, "seed")
        retries = _scalar(retries_t, "num_retries_per_sample")
        if retries < 0:
            retries = 2 + int(math.log(num)) if num > 0 else 2
        n = points.shape[0]
        if n <= 0:
            raise invalid("Expected points.rows() > 0.")
        if num <= 0:
            raise invalid("Expected num_to_sample > 0.")
        if num > n:
            raise invalid(f"Expected num_to_sample <= points.rows(). {num} vs {n}.")
        return (kmeans_plus_plus(points.astype(np.float32), num, seed, retries),)

    return compute


@kernel("KMC2ChainInitialization", devices=CPU_ONLY)
def kmc2_chain_initialization(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        distances, seed_t = (np.asarray(x) for x in ins)
        if distances.ndim != 1:
            raise invalid("Input distances should be a vector.")
        seed = _scalar(seed_t, "seed")
        if distances.size == 0:
            raise invalid("Expected distances_tensor.size() > 0.")
        d = distances.astype(np.float32)
        rng = SimplePhilox(seed)
        chosen, chosen_d = 0, d[0]
        # A candidate replaces the chain's state with probability min(1, d / chosen_d).
        for i in range(1, d.size):
            if d[i] > rng.rand_float() * chosen_d:
                chosen, chosen_d = i, d[i]
        return (np.array(chosen, np.int64),)

    return compute


@kernel("NearestNeighbors", devices=CPU_ONLY)
def nearest_neighbors(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        points, centers, k_t = (np.asarray(x) for x in ins)
        if points.ndim != 2:
            raise invalid("Input points should be a matrix.")
        if centers.ndim != 2:
            raise invalid("Input centers should be a matrix.")
        if np.ndim(k_t) != 0:
            raise invalid("Input k should be a scalar.")
        n, dims = points.shape
        if n <= 0:
            raise invalid("Expected points.rows() > 0.")
        if dims != centers.shape[1]:
            raise invalid(
                f"Expected point_dimensions == center_dimensions: {dims} vs {centers.shape[1]}."
            )
        if int(k_t) < 0:
            raise invalid("Expected k >= 0.")
        k = min(centers.shape[0], int(k_t))
        if k == 0:
            return (np.zeros((n, 0), np.int64), np.zeros((n, 0), np.float32))
        p = points.astype(np.float32)
        c = centers.astype(np.float32)
        half_p = np.float32(0.5) * np.sum(p * p, axis=1)
        half_c = np.float32(0.5) * np.sum(c * c, axis=1)
        # Half the squared distance less the point's own half norm, as TF ranks centers.
        partial = (half_c[None, :] - p @ c.T).astype(np.float32)
        if k == 1:
            idx = np.argmin(partial, axis=1)[:, None]
        else:
            idx = np.argsort(partial, axis=1, kind="stable")[:, :k]
        best = np.take_along_axis(partial, idx, axis=1)
        dist = (np.float32(2.0) * (half_p[:, None] + best)).astype(np.float32)
        return (idx.astype(np.int64), dist)

    return compute
