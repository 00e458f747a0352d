"""The candidate samplers of tf.random / tf.nn (uniform, log_uniform, learned_unigram,
fixed_unigram, all) and tf.nn.compute_accidental_hits, as TF 1.15 builds them: one stateful
op each, seeded by TF1's graph and op seeds. The samplers' outputs are
(sampled_candidates int64 [num_sampled], true_expected_count float32 [batch, num_true],
sampled_expected_count float32 [num_sampled])."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, NamedTuple

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import merge_dim, with_rank
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.random_ops import _seeds


class ComputeAccidentalHits(NamedTuple):
    """(indices, ids, weights): TF's namedtuple, named as the op; Session.run gives one back."""

    indices: Tensor
    ids: Tensor
    weights: Tensor


def _sampler_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # TF 1.15 checks true_classes' rank here; its columns only when the op runs.
    num_sampled, num_true = int(attrs["num_sampled"]), int(attrs["num_true"])
    batch = with_rank(inputs[0].shape, 2, "true_classes").as_list()[0]
    sampled = TensorShape([num_sampled])
    return [
        (dtypes.int64, sampled),
        (dtypes.float32, TensorShape([batch, num_true])),
        (dtypes.float32, sampled),
    ]


def _accidental_hits_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    true = with_rank(inputs[0].shape, 2, "true_classes")
    merge_dim(true.as_list()[1], int(attrs["num_true"]), "true_classes")
    with_rank(inputs[1].shape, 1, "sampled_candidates")
    vec = TensorShape([None])
    return [(dtypes.int32, vec), (dtypes.int64, vec), (dtypes.float32, vec)]


_SAMPLERS = (
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "LearnedUnigramCandidateSampler",
    "ThreadUnsafeUnigramCandidateSampler",
    "FixedUnigramCandidateSampler",
    "AllCandidateSampler",
)
for _op in _SAMPLERS:
    op_def_registry.register(_op, _sampler_infer, stateful=True)
# What each sampler returns: TF's namedtuple named as its op (UniformCandidateSampler, ...).
_SAMPLER_OUTPUTS = {
    op: collections.namedtuple(
        op, ["sampled_candidates", "true_expected_count", "sampled_expected_count"]
    )
    for op in _SAMPLERS
}
op_def_registry.register("ComputeAccidentalHits", _accidental_hits_infer)


def _check_minimum(op_type: str, attr: str, value: int, minimum: int) -> int:
    """TF's op definitions give these attrs a minimum, checked when the op is made."""
    value = int(value)
    if value < minimum:
        raise ValueError(
            f"Attr '{attr}' of '{op_type}' Op passed {value} less than minimum {minimum}."
        )
    return value


def _int64_input(value: Any, op_type: str, arg: str) -> Tensor:
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_element"):
        t = convert_to_tensor(value)
        if t.dtype.base_dtype != dtypes.int64:
            raise TypeError(
                f"Input '{arg}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that does "
                "not match expected type of int64."
            )
        return t
    return convert_to_tensor(value, dtype=dtypes.int64, name=arg)


def _sampler(
    op_type: str,
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    seed: int | None,
    name: str | None,
    **attrs: Any,
) -> Any:
    seed1, seed2 = _seeds(seed)
    with name_scope(name, op_type, [true_classes]) as scope:
        true = _int64_input(true_classes, op_type, "true_classes")
        all_attrs = {
            "num_true": _check_minimum(op_type, "num_true", num_true, 1),
            "num_sampled": _check_minimum(op_type, "num_sampled", num_sampled, 1),
            "unique": bool(unique),
            **attrs,
            "seed": seed1,
            "seed2": seed2,
        }
        op = make_op(op_type, [true], all_attrs, name=scope)
        return _SAMPLER_OUTPUTS[op_type](*op.outputs)


def uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> Any:
    """num_sampled classes drawn uniformly from [0, range_max)."""
    op = "UniformCandidateSampler"
    range_max = _check_minimum(op, "range_max", range_max, 1)
    return _sampler(
        op, true_classes, num_true, num_sampled, unique, seed, name, range_max=range_max
    )


def log_uniform_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> Any:
    """Classes drawn with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1) (ids sorted by
    decreasing frequency, a Zipf-like law)."""
    op = "LogUniformCandidateSampler"
    range_max = _check_minimum(op, "range_max", range_max, 1)
    return _sampler(
        op, true_classes, num_true, num_sampled, unique, seed, name, range_max=range_max
    )


def learned_unigram_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> Any:
    """Classes drawn by the counts of the true classes seen so far (each starts at 1)."""
    op = "LearnedUnigramCandidateSampler"
    range_max = _check_minimum(op, "range_max", range_max, 1)
    return _sampler(
        op, true_classes, num_true, num_sampled, unique, seed, name, range_max=range_max
    )


def fixed_unigram_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    vocab_file: str = "",
    distortion: float = 1.0,
    num_reserved_ids: int = 0,
    num_shards: int = 1,
    shard: int = 0,
    unigrams: Sequence[float] = (),
    seed: int | None = None,
    name: str | None = None,
) -> Any:
    """Classes drawn by given weights (`unigrams`, or the last column of `vocab_file`) raised
    to `distortion`; the first num_reserved_ids ids are never drawn; with num_shards > 1 only
    the ids of `shard` (id % num_shards == shard)."""
    op = "FixedUnigramCandidateSampler"
    return _sampler(
        op,
        true_classes,
        num_true,
        num_sampled,
        unique,
        seed,
        name,
        range_max=_check_minimum(op, "range_max", range_max, 1),
        vocab_file=str(vocab_file),
        distortion=float(distortion),
        num_reserved_ids=int(num_reserved_ids),
        num_shards=_check_minimum(op, "num_shards", num_shards, 1),
        shard=_check_minimum(op, "shard", shard, 0),
        unigrams=[float(w) for w in unigrams],
    )


def all_candidate_sampler(
    true_classes: Any,
    num_true: int,
    num_sampled: int,
    unique: bool,
    seed: int | None = None,
    name: str | None = None,
) -> Any:
    """Every class of [0, num_sampled), each with expected count 1 (for tests and small
    vocabularies)."""
    return _sampler("AllCandidateSampler", true_classes, num_true, num_sampled, unique, seed, name)


def compute_accidental_hits(
    true_classes: Any,
    sampled_candidates: Any,
    num_true: int,
    seed: int | None = None,
    name: str | None = None,
) -> ComputeAccidentalHits:
    """Where a sampled candidate is one of its row's true classes: (row indices int32, position
    in sampled_candidates int64, weights -FLT_MAX float32), to mask those logits."""
    op_type = "ComputeAccidentalHits"
    seed1, seed2 = _seeds(seed)
    with name_scope(name, op_type, [true_classes, sampled_candidates]) as scope:
        true = _int64_input(true_classes, op_type, "true_classes")
        sampled = _int64_input(sampled_candidates, op_type, "sampled_candidates")
        attrs = {"num_true": int(num_true), "seed": seed1, "seed2": seed2}
        op = make_op(op_type, [true, sampled], attrs, name=scope)
        return ComputeAccidentalHits(*op.outputs)


__all__: list[str] = []  # exported by the tf.nn and tf.random faces
