"""Values of small constant subgraphs by the CPU kernels, for shape inference
(framework/inferred_values), as TF's shape refiner evaluates them (EvaluateConstantTensor):
ops whose value depends only on their inputs (constant folding's), plus the sparse ops a
dense shape is made of."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import inferred_values
from tfcluster.runtime import constant_folding, kernel_table
from tfcluster.runtime.graph_ir import node_from_operation

# Beyond constant folding's ops, what the refiner evaluates where a shape asks (a dense shape
# made of sparse ops of constants).
_ALSO_EVALUATED = frozenset({"RaggedTensorToSparse", "SparseConcat"})


def evaluate(op: Any, inputs: list[np.ndarray]) -> list[Any] | None:
    """op's outputs given its input values, or None where it is not evaluated here."""
    if op.type not in constant_folding.FOLDABLE_OPS | _ALSO_EVALUATED:
        return None
    if not kernel_table.has_kernel(op.type, "CPU"):
        return None
    kdef = kernel_table.lookup(op.type, "CPU")
    if kdef.is_async:
        return None
    try:
        return list(kdef.factory(node_from_operation(op))(None, list(inputs)))
    except Exception:  # the graph's kernels report it, when they run
        return None


inferred_values.set_kernel_evaluator(evaluate)
