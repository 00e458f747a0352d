"""The candidate samplers (Uniform/LogUniform/LearnedUnigram/FixedUnigram/AllCandidateSampler)
and ComputeAccidentalHits, CPU only as in TF. A sampler kernel keeps its distribution and its
random generator for the session (the learned unigram learns across steps); a lock makes
concurrent steps take turns, as TF's sampler mutex does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _range_samplers as rs
from tfcluster.kernels._philox_stream import PhiloxStream
from tfcluster.kernels.common import Compute, invalid, shape_str
from tfcluster.kernels.random import _Generator, _generator
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.lib.io import gfile

_FLT_MAX = np.finfo(np.float32).max
# Samplers whose draws follow TF's Philox stream value for value (every one TF has).
_TF_STREAM_SAMPLERS = (
    rs.UniformSampler,
    rs.LogUniformSampler,
    rs.FixedUnigramSampler,
    rs.UnigramSampler,
)


def _true_classes(value: Any, num_true: int, range_: int) -> np.ndarray:
    true = np.asarray(value)
    if true.ndim != 2:
        raise invalid("true_classes must be a matrix")
    if true.shape[1] != num_true:
        raise invalid(
            f"true_classes must have num_true columns, expected: {true.shape[1]} was: {num_true}"
        )
    bad = (true < 0) | (true >= range_)
    if bad.any():
        raise invalid(f"`true_candidate` out of range [0, {range_}), received {int(true[bad][0])}")
    return true.astype(np.int64, copy=False)


def _sampler_kernel(make: Callable[[Any], rs.RangeSampler]) -> Callable[[Any, Any], Compute]:
    """A kernel around the sampler make(node) builds on first use (its errors, a missing vocab
    file for one, are the step's)."""

    def factory(node: Any, xp: Any) -> Compute:
        num_true = int(node.attrs["num_true"])
        num_sampled = int(node.attrs["num_sampled"])
        unique = bool(node.attrs["unique"])
        rng = _generator(node)
        philox = _Generator(node)
        built: list[rs.RangeSampler] = []

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            if not built:
                built.append(make(node))
            sampler = built[0]
            true = _true_classes(ins[0], num_true, sampler.range_)
            if unique and num_sampled > sampler.range_:
                raise invalid("Sampler's range is too small.")
            with sampler.lock:
                draws: Any = rng
                if isinstance(sampler, _TF_STREAM_SAMPLERS):
                    # TF's stream: 2048 words reserved per sampled value, read in order.
                    draws = PhiloxStream(philox.reserve(2048 * num_sampled // 4))
                sampled, true_count, sampled_count = rs.sample_batch(
                    sampler, draws, num_sampled, unique, true
                )
                if sampler.needs_updates:
                    sampler.update(true)
            return sampled, true_count, sampled_count

        return compute

    return factory


def _range_max(node: Any) -> int:
    range_max = int(node.attrs["range_max"])
    if range_max <= 0:
        raise invalid("range_max must be positive")
    return range_max


def _fixed_unigram(node: Any) -> rs.RangeSampler:
    vocab_file = node.attrs.get("vocab_file", "")
    if isinstance(vocab_file, bytes):
        vocab_file = vocab_file.decode()
    unigrams = [float(w) for w in node.attrs.get("unigrams", [])]
    if not vocab_file and not unigrams:
        raise invalid("Must provide either vocab_file or unigrams.")
    if vocab_file and unigrams:
        raise invalid("Must only provide one of vocab_file and unigrams.")
    lines = None
    if vocab_file:
        with gfile.GFile(vocab_file, "r") as f:
            text = f.read()
        lines = str(text).splitlines()
    return rs.FixedUnigramSampler(
        _range_max(node),
        unigrams,
        lines,
        float(node.attrs.get("distortion", 1.0)),
        int(node.attrs.get("num_reserved_ids", 0)),
        int(node.attrs.get("num_shards", 1)),
        int(node.attrs.get("shard", 0)),
    )


@kernel("AllCandidateSampler", devices=CPU_ONLY)
def all_candidate_sampler(node: Any, xp: Any) -> Compute:
    num_true = int(node.attrs["num_true"])
    num_sampled = int(node.attrs["num_sampled"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        true = _true_classes(ins[0], num_true, num_sampled)
        return (
            np.arange(num_sampled, dtype=np.int64),
            np.ones(true.shape, dtype=np.float32),
            np.ones(num_sampled, dtype=np.float32),
        )

    return compute


kernel("UniformCandidateSampler", devices=CPU_ONLY)(
    _sampler_kernel(lambda node: rs.UniformSampler(_range_max(node)))
)
kernel("LogUniformCandidateSampler", devices=CPU_ONLY)(
    _sampler_kernel(lambda node: rs.LogUniformSampler(_range_max(node)))
)
kernel("LearnedUnigramCandidateSampler", devices=CPU_ONLY)(
    _sampler_kernel(lambda node: rs.UnigramSampler(_range_max(node)))
)
kernel("ThreadUnsafeUnigramCandidateSampler", devices=CPU_ONLY)(
    _sampler_kernel(lambda node: rs.UnigramSampler(_range_max(node)))
)
kernel("FixedUnigramCandidateSampler", devices=CPU_ONLY)(_sampler_kernel(_fixed_unigram))


@kernel("ComputeAccidentalHits", devices=CPU_ONLY)
def compute_accidental_hits(node: Any, xp: Any) -> Compute:
    """For each true class that was also sampled (row-major over true_classes): its row, the
    position of its last occurrence among the samples, and the weight -FLT_MAX."""
    num_true = int(node.attrs["num_true"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        true, sampled = np.asarray(ins[0]), np.asarray(ins[1])
        if true.ndim != 2 or true.shape[1] != num_true:
            raise invalid("true_candidates must be a batch_size * num_true matrix")
        if sampled.ndim != 1:
            raise invalid(
                "sampled_candidates must be a vector, which is typically an output from "
                f"CandidateSampler, got shape {shape_str(sampled.shape)}"
            )
        flat = true.reshape(-1)
        order = np.argsort(sampled, kind="stable")
        ordered = sampled[order]
        # The rightmost equal entry of a stable sort is the last occurrence.
        pos = np.searchsorted(ordered, flat, side="right") - 1
        safe = np.clip(pos, 0, max(ordered.size - 1, 0))
        hit = (pos >= 0) & (ordered[safe] == flat) if ordered.size else np.zeros_like(flat, bool)
        rows = np.repeat(np.arange(true.shape[0], dtype=np.int32), num_true)[hit]
        ids = order[safe[hit]].astype(np.int64)
        weights = np.full(rows.shape, -_FLT_MAX, dtype=np.float32)
        return rows, ids, weights

    return compute
