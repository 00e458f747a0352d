"""tf.distribute.ReduceOp: how values of the replicas are combined."""

from __future__ import annotations

import enum
from typing import Any

from tfcluster.ops.variables import VariableAggregation


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> ReduceOp:
        mapping = {VariableAggregation.SUM: ReduceOp.SUM, VariableAggregation.MEAN: ReduceOp.MEAN}
        reduce_op = mapping.get(aggregation)
        if reduce_op is None:
            raise ValueError(
                f"Could not convert from `tf.VariableAggregation` {aggregation} to"
                "`tf.distribute.ReduceOp` type"
            )
        return reduce_op


def check(reduce_op: Any) -> ReduceOp:
    """A ReduceOp from a ReduceOp or its name ('SUM', 'MEAN'), as TF accepts both."""
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str) and reduce_op.upper() in ReduceOp.__members__:
        return ReduceOp[reduce_op.upper()]
    raise TypeError(f"Expected `reduce_op` to be a `tf.distribute.ReduceOp`, not: {reduce_op!r}")
