"""Parsing and proto ops have no gradient: their inputs are strings (TF 1.15 marks these the
same way; its ParseExample/DecodeCSV family is in no table there, nor here)."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "DecodeRaw",
    "StringToNumber",
    "SerializeTensor",
    "ParseTensor",
    "DecodeProtoV2",
    "EncodeProto",
):
    not_differentiable(_op)
