"""The ref-handle reader ops have no gradient (TF 1.15's io_ops registers them
NotDifferentiable); the resource-handle readers (*V2), ReadFile, WriteFile and
MatchingFiles are in no table in TF 1.15 (LookupError), as here."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "TFRecordReader",
    "TextLineReader",
    "FixedLengthRecordReader",
    "WholeFileReader",
    "IdentityReader",
    "ReaderRead",
    "ReaderReadUpTo",
    "ReaderNumRecordsProduced",
    "ReaderNumWorkUnitsCompleted",
    "ReaderSerializeState",
    "ReaderRestoreState",
    "ReaderReset",
):
    not_differentiable(_op)
