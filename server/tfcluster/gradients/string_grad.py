"""String ops have no gradient (TF 1.15's string_ops marks these not differentiable)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "AsString",
    "DecodeBase64",
    "EncodeBase64",
    "ReduceJoin",
    "RegexReplace",
    "StringJoin",
    "StringToHashBucket",
    "StringToHashBucketFast",
    "StringToHashBucketStrong",
):
    not_differentiable(_op)
