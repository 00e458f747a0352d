"""tfcluster's iterator-state ops and LMDBReader have no gradient; TF 1.15's dataset and
iterator ops are in no gradient table (LookupError), as here."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in ("_IteratorStateToString", "_IteratorStateFromString", "LMDBReader"):
    not_differentiable(_op)
