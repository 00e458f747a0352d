"""The candidate samplers and ComputeAccidentalHits have no gradient (TF's
candidate_sampling_ops registers them NotDifferentiable): their outputs are ids and counts."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "LearnedUnigramCandidateSampler",
    "ThreadUnsafeUnigramCandidateSampler",
    "FixedUnigramCandidateSampler",
    "AllCandidateSampler",
    "ComputeAccidentalHits",
):
    not_differentiable(_op)
