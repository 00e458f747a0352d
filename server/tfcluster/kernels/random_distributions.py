"""Random kernels beyond uniform/normal, and the stateless ones.

Multinomial reads TF's GuardedPhiloxRandom stream as TF 1.15's CPU kernel does, so a seeded
graph samples TF's classes; so do RandomGamma and RandomPoisson (kernels/_tf_gamma_poisson.py),
drawn on the host, the result moved to the kernel's device.
Stateless ops (StatelessRandom*, StatelessTruncatedNormal, StatelessMultinomial) are pure
functions of their seed computed with TF's own Philox generator, so they give TensorFlow's
numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _philox, _tf_gamma_poisson
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels._eigen_parallel import parallel_for_blocks
from tfcluster.kernels._philox_stream import PhiloxStream
from tfcluster.kernels.random import _Generator
from tfcluster.kernels.registry import kernel
from tfcluster.kernels.special_math import igamma_grad_a, lgamma
from tfcluster.runtime import thread_budget

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _shape(value: Any) -> tuple[int, ...]:
    arr = u.host(value)
    if arr.ndim != 1:
        raise u.invalid(f"shape must be a vector of {{int32,int64}}, got shape {list(arr.shape)}")
    dims = tuple(int(d) for d in arr)
    if any(d < 0 for d in dims):
        raise u.invalid(f"Dimension {min(dims)} must be >= 0")
    return dims


def _check_logits(logits: Any, num_samples: int) -> None:
    if logits.ndim != 2:
        raise u.invalid(f"logits should be a matrix, got shape {u.shape_str(logits.shape)}")
    if num_samples < 0:
        raise u.invalid(f"num_samples should be nonnegative, got {num_samples}")
    if logits.shape[1] == 0 and logits.shape[0] > 0 and num_samples > 0:
        raise u.invalid("num_classes should be positive, got 0")


def sample_categorical(logits: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Class indices for uniforms [batch, n] in [0, 1) under softmax(logits) [batch, k]:
    one searchsorted over every row's cumulative distribution, rows offset apart."""
    batch, classes = logits.shape
    x = logits.astype(np.float64)
    top = np.max(x, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(all="ignore"):
        probs = np.exp(x - top)
        cdf = np.cumsum(probs, axis=1)
        cdf = cdf / cdf[:, -1:]
    offsets = 2.0 * np.arange(batch)[:, None]
    positions = np.searchsorted(
        (cdf + offsets).reshape(-1), (uniforms + offsets).reshape(-1), "right"
    )
    out = positions.reshape(uniforms.shape) - np.arange(batch)[:, None] * classes
    return np.minimum(out, classes - 1)


def _weights(logits: np.ndarray) -> np.ndarray:
    """Each row's unnormalised probabilities, in double: exp of the finite logits less the
    row's largest finite one (the dtype's lowest where none is finite), 0 elsewhere."""
    x = logits.astype(np.float64)
    finite = np.isfinite(x)
    lowest = float(np.finfo(logits.dtype).min)
    top = np.max(np.where(finite, x, -np.inf), axis=1, keepdims=True, initial=-np.inf)
    top[top == -np.inf] = lowest
    with np.errstate(all="ignore"):
        weights = np.exp(np.subtract(x, top, out=x), out=x)
    weights[~finite] = 0.0
    return weights


def _stateful_categorical(logits: np.ndarray, n: int, start: _philox.Start) -> np.ndarray:
    """TF 1.15's CPU Multinomial: per row, an unnormalised running cdf over the finite logits
    (in double, after subtracting the largest finite logit) and upper_bound(RandDouble() *
    total). Each block of rows reads one SimplePhilox stream in order, starting
    first_row * (n + 3) / 4 generator calls in, as TF's shards do: a block's rows take its
    stream's doubles one after another (n each), drawn at once here."""
    batch, classes = logits.shape
    out = np.empty((batch, n), dtype=np.int64)
    if batch == 0 or n == 0 or classes == 0:
        out[:] = 0
        return out
    weights = _weights(logits)
    cost = int(50 * (n * math.log(classes) / math.log(2) + classes))
    # TF's intra-op pool: the session's intra_op_parallelism_threads or the CPUs it may use.
    for first, limit in parallel_for_blocks(batch, cost, thread_budget.current().intra):
        skip = first * (n + 3) // 4
        stream = PhiloxStream(_philox.Start(start.key, start.base, start.first + skip))
        targets = stream.random((limit - first) * n).reshape(limit - first, n)
        for b in range(first, limit):
            # Row by row: numpy's cumsum along the rows of a matrix is several times slower.
            cdf = np.cumsum(weights[b])
            out[b] = np.searchsorted(cdf, targets[b - first] * cdf[-1], "right")
    return out


@kernel("Multinomial", host=(0, 1))
def multinomial(node: Any, xp: Any) -> Compute:
    gen = _Generator(node)
    out_dtype = u.np_dtype(node, "output_dtype") if "output_dtype" in node.attrs else np.int64

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        logits = u.host(ins[0])
        n = u.host_int(ins[1], "num_samples")
        _check_logits(logits, n)
        # TF reserves 2 doubles' words per sample, samples rounded up to 4, 256 calls each.
        start = gen.reserve_outputs(logits.shape[0] * ((n + 3) // 4 * 4) * 2)
        return (xp.asarray(_stateful_categorical(logits, n, start).astype(out_dtype)),)

    return compute


def _seed_pair(value: Any) -> tuple[int, int]:
    seed = u.host(value)
    if seed.shape != (2,):
        raise u.invalid(f"seed must have shape [2], not {u.shape_str(seed.shape)}")
    return int(seed[0]), int(seed[1])


@kernel("StatelessMultinomial", all_host=True)
def stateless_multinomial(node: Any, xp: Any) -> Compute:
    out_dtype = u.np_dtype(node, "output_dtype") if "output_dtype" in node.attrs else np.int64

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        logits = u.host(ins[0])
        n = u.host_int(ins[1], "num_samples")
        _check_logits(logits, n)
        uniforms = _philox.uniform(_seed_pair(ins[2]), logits.shape[0] * n, np.dtype(np.float64))
        samples = sample_categorical(logits, uniforms.reshape(logits.shape[0], n))
        return (xp.asarray(samples.astype(out_dtype)),)

    return compute


@kernel("RandomGamma", host=(0, 1))
def random_gamma(node: Any, xp: Any) -> Compute:
    """TF 1.15's sampler on the node's Philox stream (kernels/_tf_gamma_poisson.py)."""
    gen = _Generator(node)
    dtype = u.np_dtype(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        shape = _shape(ins[0])
        alpha = u.host(ins[1]).astype(np.float64)
        samples = int(np.prod(shape, dtype=np.int64))
        start = gen.reserve_outputs(samples * alpha.size)
        draws = _tf_gamma_poisson.gamma(start, alpha, samples)
        return (xp.asarray(draws.reshape(shape + alpha.shape).astype(dtype)),)

    return compute


@kernel("RandomGammaGrad")
def random_gamma_grad(node: Any, xp: Any) -> Compute:
    """d sample / d alpha of a Gamma(alpha, 1) sample at fixed CDF value (implicit
    reparameterisation): -(dP/d alpha) / (dP/d x)."""
    dtype = u.np_dtype(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        alpha, sample = ins
        a = alpha.astype(np.float64)
        x = sample.astype(np.float64)
        with np.errstate(all="ignore"):
            density = xp.exp((a - 1.0) * xp.log(x) - x - lgamma(xp, a))
            out = -igamma_grad_a(xp, a, x) / density
        return (out.astype(dtype),)

    return compute


def _poisson(version: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        """TF 1.15's sampler on the node's Philox stream (kernels/_tf_gamma_poisson.py)."""
        gen = _Generator(node)
        dtype = u.np_dtype(node, "dtype")
        info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else np.finfo(dtype)
        highest = float(info.max)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shape = _shape(ins[0])
            rate = u.host(ins[1]).astype(np.float64)
            samples = int(np.prod(shape, dtype=np.int64))
            start = gen.reserve_outputs(samples * rate.size)
            draws = _tf_gamma_poisson.poisson(start, rate, samples, highest)
            return (xp.asarray(draws.reshape(shape + rate.shape).astype(dtype)),)

        return compute

    return factory


kernel("RandomPoisson", host=(0, 1))(_poisson(1))
kernel("RandomPoissonV2", host=(0, 1))(_poisson(2))


def _stateless(draw: Callable[..., np.ndarray]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node, "dtype")

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            shape = _shape(ins[0])
            size = int(np.prod(shape, dtype=np.int64))
            values = draw(_seed_pair(ins[1]), size, dtype, ins[2:])
            return (xp.asarray(values.astype(dtype).reshape(shape)),)

        return compute

    return factory


def _uniform_int(seed: tuple[int, int], size: int, dtype: Any, bounds: list[Any]) -> np.ndarray:
    low, high = (u.host(b) for b in bounds)
    if low.ndim or high.ndim:
        raise u.invalid(
            f"minval must be 0-D, got shape {list(low.shape)}; maxval {list(high.shape)}"
        )
    if int(low) >= int(high):
        raise u.invalid(f"Need minval < maxval: {int(low)} >= {int(high)}")
    return _philox.uniform_int(seed, size, int(low), int(high), dtype)


kernel("StatelessRandomUniform", all_host=True)(
    _stateless(lambda seed, size, dtype, _: _philox.uniform(seed, size, dtype))
)
kernel("StatelessRandomNormal", all_host=True)(
    _stateless(lambda seed, size, dtype, _: _philox.normal(seed, size, dtype))
)
kernel("StatelessTruncatedNormal", all_host=True)(
    _stateless(lambda seed, size, dtype, _: _philox.truncated_normal(seed, size, dtype))
)
kernel("StatelessRandomUniformInt", all_host=True)(_stateless(_uniform_int))
