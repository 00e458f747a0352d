"""tfcluster's gradient table classifies every op type it implements as TF 1.15's does: a
gradient function, not differentiable (tf.gradients gives None through it), or no entry
(LookupError when a gradient reaches it). TF's table is recorded by
tests/tf_reference/record_gradient_registry.py into data/gradient_registry.json."""

from __future__ import annotations

import json
import os

import pytest
from tfcluster.framework import op_def_registry
from tfcluster.gradients import registry

DATA = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "tf_reference", "data", "gradient_registry.json"
)

# Where tfcluster's table still differs from TF 1.15's, and why (each entry: TF's class,
# tfcluster's class). The test fails if this list is wrong either way.
KNOWN: dict[str, tuple[str, str, str]] = {
    # tf.einsum and tf.linalg.expm are python composites in TF 1.15 (differentiable through
    # the ops they build); tfcluster builds one Einsum / MatrixExponential op for them, so
    # these need a gradient here for tf.einsum / expm to stay differentiable.
    "Einsum": ("missing", "gradient", "tf.einsum builds it"),
    "MatrixExponential": ("missing", "gradient", "tf.linalg.expm builds it"),
    # TF 1.15 differentiates function calls in gradients_impl (SymbolicGradient / the
    # function's own gradient), not through its table.
    "PartitionedCall": ("missing", "gradient", "function calls"),
    "StatefulPartitionedCall": ("missing", "gradient", "function calls"),
}
# TF 1.15 differentiates its v1 while loops and conds through these ops' gradient functions
# and the control-flow contexts (WhileContext, CondContext) the forward graph carries;
# tfcluster's tf.while_loop / tf.cond differentiate their own forms (control_flow_grad), and
# graphs imported from TF carry no contexts, so the table has no entry for these yet.
for _op in ("Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"):
    KNOWN[_op] = ("gradient", "missing", "v1 control flow")
    if _op != "LoopCond":
        KNOWN[f"Ref{_op}"] = ("gradient", "missing", "v1 control flow")
# Not written yet: tf.contrib.batching's Batch/Unbatch gradients.
for _op in ("Batch", "Unbatch"):
    KNOWN[_op] = ("gradient", "missing", "not written yet")
