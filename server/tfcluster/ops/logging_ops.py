"""tf.Assert: an op that fails the step with InvalidArgumentError when its condition is false,
showing the data it was given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, convert_to_tensor, name_scope
from tfcluster.ops.op_util import make_op

# Stateful: never pruned as a duplicate, never folded away.
op_def_registry.register("Assert", op_def_registry.no_outputs, stateful=True)
OP_TYPES = ("Assert",)


def Assert(
    condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None
) -> Operation:
    """Asserts that `condition` is true when the step runs; else the step fails with
    InvalidArgumentError "assertion failed: [data...]" (the first `summarize` entries of
    each data tensor, 3 by default)."""
    with name_scope(name, "Assert", [condition, *data]) as scope:
        # As TF: the data converted once in the outer scope, then again by the op itself.
        [convert_to_tensor(x) for x in data]
        with name_scope("Assert") as op_scope:
            cond = convert_to_tensor(condition, dtype=dtypes.bool_, name="condition")
            xs = [convert_to_tensor(x, name=f"data_{i}") for i, x in enumerate(data)]
            attrs = {"T": [x.dtype.base_dtype for x in xs], "summarize": int(summarize or 3)}
            op = make_op("Assert", [cond, *xs], attrs, name=op_scope)
    del scope
    return op


__all__ = ["Assert"]
