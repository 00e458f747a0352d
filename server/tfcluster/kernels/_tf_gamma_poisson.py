"""RandomGamma and RandomPoisson(V2) as TF 1.15's CPU kernels sample them, on their Philox
streams (random_gamma_op.cc, random_poisson_op.cc).

The op reserves 256 generator calls per output (GuardedPhiloxRandom); output `o` (alpha- or
rate-major: o = alpha_idx * samples + sample_idx) reads its own calls from `256 * o` on.
Each call gives either two doubles of UniformDistribution<double> or two of
NormalDistribution<double> (Box-Muller), and a sample takes the pair's second value first.
Gamma: alpha 1 is -log(1 - u); otherwise Marsaglia and Tsang's transformation-rejection from
(normal, uniform) pairs, with d = alpha + 2/3 and a final u ** (1 / alpha) below 1. Poisson:
Knuth's product of uniforms below rate 10, Hormann's transformed rejection from there. All
in double, cast to the output dtype once.

The rejection loops run over every output at once: each round takes the next draw of the
outputs still sampling, computing only the Philox calls those need.
"""

from __future__ import annotations

import math

import numpy as np

from tfcluster.kernels import _philox

_CALLS_PER_OUTPUT = 256


class _Calls:
    """Each output's generator: its next call's index past 256 * output."""

    def __init__(self, start: _philox.Start, outputs: np.ndarray) -> None:
        self.start = start
        self.base = np.uint64(start.first) + outputs.astype(np.uint64) * np.uint64(
            _CALLS_PER_OUTPUT
        )
        self.next = np.zeros(outputs.shape[0], np.uint64)

    def next_words(self, rows: np.ndarray) -> np.ndarray:
        offsets = self.base[rows] + self.next[rows]
        self.next[rows] += np.uint64(1)
        counters = _philox.counters_from(list(self.start.base), offsets)
        return _philox.philox(counters, self.start.key)


class _Pairs:
    """Per output, the current call's pair of doubles (uniform or normal) and how many of
    it are left; `take` hands out the next value, calling the generator when none is left."""

    def __init__(self, calls: _Calls, kind: str) -> None:
        size = calls.next.shape[0]
        self.first = np.zeros(size)
        self.second = np.zeros(size)
        self.left = np.zeros(size, np.int64)
        self.kind = kind
        self.calls = calls

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The next value of each output in rows (indices into the outputs)."""
        empty = rows[self.left[rows] == 0]
        if empty.size:
            w = self.calls.next_words(empty)
            if self.kind == "normal":
                d0, d1 = _philox.box_muller_double(w)
            else:
                d0 = _philox.uint64_to_double(w[:, 0], w[:, 1])
                d1 = _philox.uint64_to_double(w[:, 2], w[:, 3])
            self.first[empty], self.second[empty] = d0, d1
            self.left[empty] = 2
        self.left[rows] -= 1
        # result[remaining] after the decrement: the pair's second value first.
        return np.where(self.left[rows] == 1, self.second[rows], self.first[rows])


def gamma(start: _philox.Start, alpha: np.ndarray, samples: int) -> np.ndarray:
    """[samples, *alpha.shape] Gamma(alpha, 1) draws in double, TF's for the stream."""
    flat = np.asarray(alpha, np.float64).reshape(-1)
    n = flat.size * samples
    out = np.empty(n)
    if n == 0:
        return out.reshape((samples, *np.shape(alpha)))
    outputs = np.arange(n, dtype=np.int64)
    a = flat[outputs // samples]  # output o is sample o % samples of alpha o // samples
    calls = _Calls(start, outputs)
    uniforms = _Pairs(calls, "uniform")
    normals = _Pairs(calls, "normal")
    with np.errstate(all="ignore"):
        ones = np.flatnonzero(a == 1.0)
        if ones.size:
            out[ones] = -np.log(1.0 - uniforms.take(ones))
        less = a < 1
        d = a + np.where(less, 2.0 / 3, -1.0 / 3)
        c = 1.0 / 3 / np.sqrt(d)
        active = np.flatnonzero(a != 1.0)
        while active.size:
            x = normals.take(active)
            v = 1 + c[active] * x
            positive = ~(v <= 0)
            rows, x, v = active[positive], x[positive], v[positive]
            v = v * v * v
            u = uniforms.take(rows)
            dr = d[rows]
            accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (
                np.log(u) < 0.5 * x * x + dr * (1 - v + np.log(v))
            )
            done, res = rows[accept], dr[accept] * v[accept]
            small = less[done]
            if small.any():
                b = uniforms.take(done[small])
                res[small] *= np.power(b, 1 / a[done[small]])
            out[done] = res
            finished = np.zeros(n, bool)
            finished[done] = True
            active = active[~finished[active]]
    # Output o holds sample o % samples of alpha o // samples at [sample, alpha].
    return out.reshape(flat.size, samples).T.reshape((samples, *np.shape(alpha)))


def poisson(start: _philox.Start, rate: np.ndarray, samples: int, highest: float) -> np.ndarray:
    """[samples, *rate.shape] Poisson(rate) draws in double, TF's for the stream; `highest`
    is the output dtype's largest value (a count past it is drawn again)."""
    flat = np.asarray(rate, np.float64).reshape(-1)
    n = flat.size * samples
    out = np.empty(n)
    if n == 0:
        return out.reshape((samples, *np.shape(rate)))
    outputs = np.arange(n, dtype=np.int64)
    r = flat[outputs // samples]
    calls = _Calls(start, outputs)
    uniforms = _Pairs(calls, "uniform")
    with np.errstate(all="ignore"):
        _knuth(np.flatnonzero(~(r >= 10)), r, uniforms, out, highest)
        _transformed_rejection(np.flatnonzero(r >= 10), r, uniforms, out, highest)
    return out.reshape(flat.size, samples).T.reshape((samples, *np.shape(rate)))


def _knuth(active: np.ndarray, r: np.ndarray, uniforms: _Pairs, out: np.ndarray, top: float):
    exp_neg_rate = np.exp(-r)
    prod = np.ones(out.shape[0])
    x = np.zeros(out.shape[0])
    while active.size:
        prod[active] = prod[active] * uniforms.take(active)
        stop = (prod[active] <= exp_neg_rate[active]) & (x[active] <= top)
        out[active[stop]] = x[active[stop]]
        active = active[~stop]
        x[active] += 1


_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _transformed_rejection(
    active: np.ndarray, r: np.ndarray, uniforms: _Pairs, out: np.ndarray, top: float
) -> None:
    log_rate = np.log(r)
    b = 0.931 + 2.53 * np.sqrt(r)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while active.size:
        u = uniforms.take(active) - 0.5
        v = uniforms.take(active)
        ar, br = a[active], b[active]
        u_shifted = 0.5 - np.abs(u)
        k = np.floor((2 * ar / u_shifted + br) * u + r[active] + 0.43)
        fits = ~(k > top)
        quick = fits & (u_shifted >= 0.07) & (v <= v_r[active])
        again = ~fits | quick | (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        slow = ~again
        accept = quick.copy()
        if slow.any():
            ks = k[slow]
            us = u_shifted[slow]
            s = np.log(v[slow] * inv_alpha[active[slow]] / (ar[slow] / (us * us) + br[slow]))
            t = -r[active[slow]] + ks * log_rate[active[slow]] - _lgamma(ks + 1).astype(np.float64)
            accept[slow] = s <= t
        out[active[accept]] = k[accept]
        active = active[~accept]
