"""The ref-handle lookup-table ops and their V2 twins have no gradient (TF 1.15's lookup_ops
registers them NotDifferentiable); LookupTableExport/Import(V2) and LookupTableRemoveV2 are
in no table in TF 1.15 (LookupError), as here."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "HashTable",
    "MutableHashTable",
    "MutableHashTableOfTensors",
    "MutableDenseHashTable",
    "InitializeTable",
    "InitializeTableFromTextFile",
    "LookupTableFind",
    "LookupTableSize",
    "LookupTableInsert",
):
    not_differentiable(_op)
    not_differentiable(f"{_op}V2")
