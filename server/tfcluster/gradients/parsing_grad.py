"""Parsing ops have no gradient: their inputs are strings (TF marks them the same way)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "ParseExample",
    "ParseSingleExample",
    "ParseSequenceExample",
    "ParseSingleSequenceExample",
    "DecodeRaw",
    "DecodeCSV",
    "StringToNumber",
    "DecodeCompressed",
    "SerializeTensor",
    "ParseTensor",
):
    not_differentiable(_op)
