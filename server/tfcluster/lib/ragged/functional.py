"""tf.ragged.map_flat_values: an op applied to the flat values of RaggedTensors that share
one row partition, the result keeping that partition."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import control_dependencies
from tfcluster.ops import nest, ragged_checks
from tfcluster.ops.ragged_tensor import RaggedTensor


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """op(*args, **kwargs) with every RaggedTensor replaced by its flat_values."""
    partitions: list[RaggedTensor] = []
    flat_args = _replace(list(args), partitions)
    flat_kwargs = _replace(dict(kwargs), partitions)
    if not partitions:
        return op(*args, **kwargs)
    first = partitions[0].nested_row_splits
    if len({p.row_splits.dtype.base_dtype for p in partitions}) > 1:
        raise ValueError(
            "Input RaggedTensors have mismatched row_splits dtypes; use "
            "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
        )
    message = "Inputs must have identical ragged splits"
    if any(len(p.nested_row_splits) != len(first) for p in partitions):
        raise ValueError(message)
    checks = [
        ragged_checks.assert_equal(a, b, message=message)
        for p in partitions[1:]
        for a, b in zip(first, p.nested_row_splits)
    ]
    with control_dependencies(checks):
        return RaggedTensor.from_nested_row_splits(
            op(*flat_args, **flat_kwargs), first, validate=False
        )


def _replace(structure: Any, partitions: list[RaggedTensor]) -> Any:
    def leaf(x: Any) -> Any:
        if isinstance(x, RaggedTensor):
            partitions.append(x)
            return x.flat_values
        return x

    if isinstance(structure, RaggedTensor):
        return leaf(structure)
    if nest.is_nested(structure):
        return nest.map_structure(leaf, structure)
    return structure
