"""tf.nn.embedding_lookup of one embedding tensor or variable, as TF 1.15 builds it: the gather
runs beside the params (colocated with the variable, so on its ps only the looked-up rows are
read and sent), an optional max_norm clips each row, and the result leaves through an Identity
free of that colocation. Its gradient is the gather's: an IndexedSlices of the looked-up rows,
which the optimizers apply to those rows only. Lookups over several shards (partition
strategies 'mod' and 'div') are not built yet and say so."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from tfcluster.framework.indexed_slices import convert_n_to_tensor_or_indexed_slices
from tfcluster.ops import array_ops, clip_ops, math_ops
from tfcluster.ops.variables import PartitionedVariable


def _rank(x: Any) -> tuple[Any, bool]:
    rank = convert_to_tensor(x).shape.ndims
    if rank:
        return rank, True
    return array_ops.rank(x), False


def _clip(params: Tensor, ids: Tensor, max_norm: Any) -> Tensor:
    """Each looked-up row scaled down to an L2 norm of at most max_norm (when given)."""
    if max_norm is None:
        return params
    ids_rank, ids_static = _rank(ids)
    params_rank, params_static = _rank(params)
    axes = (
        list(range(ids_rank, params_rank))
        if ids_static and params_static
        else math_ops.range(ids_rank, params_rank)
    )
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)  # type: ignore[no-any-return]


def embedding_lookup(
    params: Any,
    ids: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: Any = None,
) -> Tensor:
    """The rows of params at ids: a tensor of shape ids.shape + params.shape[1:]."""
    del validate_indices  # TF ignores it too
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, list | tuple) and not params:
        raise ValueError("Need at least one param")
    if isinstance(params, PartitionedVariable):
        params = list(params)
    if not isinstance(params, list | tuple):
        params = [params]
    params = list(params)
    with name_scope(name, "embedding_lookup", [*params, ids]) as scope:
        np_ = len(params)
        params = convert_n_to_tensor_or_indexed_slices(params, name="params")
        ids = convert_to_tensor(ids, name="ids")
        if np_ > 1:
            raise errors.UnimplementedError(
                None,
                None,
                f"tf.nn.embedding_lookup over {np_} shards (partition_strategy="
                f"{partition_strategy!r}) is not implemented in tfcluster yet; a single "
                "embedding tensor or variable is",
            )
        with colocate_with(params[0]):
            result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
        # The result carries no colocation with the params (as with several shards in TF).
        return array_ops.identity(result)


__all__ = ["embedding_lookup"]
