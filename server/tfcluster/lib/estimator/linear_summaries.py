"""The summaries TF 1.15's linear estimators add after the linear model: the bias (`bias`,
a scalar of its first value, or a histogram), and `fraction_of_zero_weights` over every
weight, each counted in a cond (`zero_count`) as TF's _compute_fraction_of_zero does."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.ops import array_ops, constant_op, control_flow_ops, math_ops, nn_impl
from tfcluster.ops.summary_ops import histogram, scalar
from tfcluster.ops.variables import PartitionedVariable


def expanded_variables(variables: Any) -> list[Any]:
    """The variables with each partitioned one replaced by its parts."""
    out: list[Any] = []
    for v in variables:
        out.extend(list(v) if isinstance(v, PartitionedVariable) else [v])
    return out


def fraction_of_zero(variables: list[Any]) -> Tensor:
    """The fraction of zero entries over all the variables (NaN when they hold none)."""
    with name_scope("zero_fraction"):
        with name_scope("total_size"):
            sizes = [array_ops.size(x, out_type=dtypes.int64) for x in variables]
            total_size = math_ops.add_n(sizes)
        with name_scope("total_zero"):

            def count(x: Any, size: Tensor) -> Tensor:
                def zeros() -> Tensor:
                    internal_deprecations.called_internally(internal_deprecations.TO_FLOAT)
                    return nn_impl.zero_fraction(x) * math_ops.cast(
                        size, dtypes.float32, name="ToFloat"
                    )

                return control_flow_ops.cond(
                    math_ops.equal(size, constant_op.constant(0, dtype=dtypes.int64)),
                    true_fn=lambda: constant_op.constant(0, dtype=dtypes.float32),
                    false_fn=zeros,
                    name="zero_count",
                )

            total_zero = math_ops.add_n([count(x, size) for x, size in zip(variables, sizes)])
        with name_scope("compute"):
            total = math_ops.cast(total_size, dtype=dtypes.float32, name="float32_size")
            fraction = total_zero / total
        return array_ops.identity(fraction, name="zero_fraction_or_nan")


def add_linear_summaries(bias: Any, weights: list[Any], units: int) -> None:
    """`bias` and `fraction_of_zero_weights`, in the current name scope."""
    bias_parts = expanded_variables([bias])
    if units > 1:
        histogram("bias", bias_parts)
    else:
        scalar("bias", bias_parts[0][0])
    scalar("fraction_of_zero_weights", fraction_of_zero(expanded_variables(weights)))
