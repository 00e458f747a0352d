"""tf.nn.embedding_lookup, as TF 1.15 builds it.

One embedding tensor or variable: a gather beside the params (colocated with the variable, so
on its ps only the looked-up rows are read and sent), an optional max_norm clip of each row,
and an Identity free of that colocation.

Several shards (a list, or a PartitionedVariable): each id is routed to its shard by the
partition strategy ('mod': shard id % n, row id // n; 'div': contiguous ranges, the first
shards one row longer when the rows do not divide evenly), the ids are split with
DynamicPartition, each shard's ids are gathered by a GatherV2 colocated with that shard (on
its ps task: only those rows cross the network), and ParallelDynamicStitch puts the rows back
in the order of the ids. The gradient of each gather is an IndexedSlices of its rows, which
the optimizers apply on the ps to those rows only.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from tfcluster.framework.indexed_slices import convert_n_to_tensor_or_indexed_slices
from tfcluster.framework.tensor_shape import Dimension
from tfcluster.ops import array_ops, clip_ops, constant_op, math_ops, partition_ops
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


def _as_shards(params: Any) -> list[Any]:
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, list | tuple) and not params:
        raise ValueError("Need at least one param")
    if isinstance(params, PartitionedVariable):
        return list(params)
    if not isinstance(params, list):
        return [params]
    return params


def _first_dim(t: Tensor) -> int | None:
    dims = t.shape.dims
    return None if dims is None else dims[0].value


def _div_assignments(params: list[Tensor], flat_ids: Tensor) -> tuple[Tensor, Tensor]:
    """'div': shard p holds a contiguous range of ids; the first `extras` shards one more."""
    np_ = len(params)
    total = Dimension(_first_dim(params[0]))
    for p in params[1:]:
        total += Dimension(_first_dim(p))
    if total.value:
        num_total_ids = constant_op.constant(total.value, flat_ids.dtype)
    else:
        sizes: list[Any] = []
        for p in params:
            dim = _first_dim(p)
            if dim is not None:
                sizes.append(dim)
            else:
                with colocate_with(p):
                    sizes.append(array_ops.shape(p)[0])
        num_total_ids = math_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
    ids_per_partition = num_total_ids // np_
    extras = num_total_ids % np_
    p_assignments = math_ops.maximum(
        flat_ids // (ids_per_partition + 1), (flat_ids - extras) // ids_per_partition
    )
    internal_deprecations.called_internally(internal_deprecations.WHERE)
    new_ids = array_ops.where(
        p_assignments < extras,
        flat_ids % (ids_per_partition + 1),
        (flat_ids - extras) % ids_per_partition,
    )
    return p_assignments, new_ids


def _sharded_lookup(
    params: list[Tensor], ids: Tensor, partition_strategy: str, name: str, max_norm: Any
) -> Tensor:
    np_ = len(params)
    flat_ids = array_ops.reshape(ids, [-1])
    original_indices = math_ops.range(array_ops.size(flat_ids))
    if partition_strategy == "mod":
        p_assignments = flat_ids % np_
        new_ids = flat_ids // np_
    elif partition_strategy == "div":
        p_assignments, new_ids = _div_assignments(params, flat_ids)
    else:
        raise ValueError("Unrecognized partition strategy: " + str(partition_strategy))
    p_assignments = math_ops.cast(p_assignments, dtypes.int32)
    gather_ids = partition_ops.dynamic_partition(new_ids, p_assignments, np_)
    pindices = partition_ops.dynamic_partition(original_indices, p_assignments, np_)
    partitioned_result = []
    for p in range(np_):
        # On the shard's own task: only the rows asked for leave it.
        with colocate_with(params[p]):
            partitioned_result.append(array_ops.gather(params[p], gather_ids[p]))
    ret = partition_ops.parallel_dynamic_stitch(pindices, partitioned_result, name=name)
    element_shape_s = params[0].shape[1:]
    for shard in params[1:]:
        element_shape_s = element_shape_s.merge_with(shard.shape[1:])
    element_shape_d: Any
    if element_shape_s.is_fully_defined():
        element_shape_d = element_shape_s
    else:
        with colocate_with(params[0]):
            params_shape = array_ops.shape(params[0])
        element_shape_d = params_shape[1:]
    ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape_d], 0))
    ret.set_shape(ids.shape.concatenate(element_shape_s))
    return _clip(ret, ids, max_norm)


def embedding_lookup(
    params: Any,
    ids: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: Any = None,
) -> Tensor:
    """The rows of params at ids: a tensor of shape ids.shape + params.shape[1:]. params is
    one tensor/variable, a list of shards, or a PartitionedVariable (split along axis 0)."""
    del validate_indices  # TF ignores it too (the CPU gather always checks)
    shards = _as_shards(params)
    with name_scope(name, "embedding_lookup", [*shards, ids]) as scope:
        # Resource variables stay variables: their rows are read by ResourceGather, not by
        # a dense read (as TF preserves them).
        if not any(getattr(p, "_is_resource_variable", False) for p in shards):
            shards = convert_n_to_tensor_or_indexed_slices(shards, name="params")
        ids = convert_to_tensor(ids, name="ids")
        if len(shards) == 1:
            with colocate_with(shards[0]):
                result = _clip(array_ops.gather(shards[0], ids, name=scope), ids, max_norm)
            # The result carries no colocation with the params.
            return array_ops.identity(result)
        return _sharded_lookup(shards, ids, partition_strategy, scope, max_norm)


__all__ = ["embedding_lookup"]
