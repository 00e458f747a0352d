"""Ordering ops: tf.nn.top_k / tf.math.top_k, tf.nn.in_top_k, tf.sort, tf.argsort and
tf.searchsorted, built as TF 1.15 builds them (sort and argsort are TopKV2 underneath)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.infer_util import (
    check_dtype,
    index_tensor,
    merge_dim,
    shape_list,
    static_int,
    with_rank,
    with_rank_at_least,
)
from tfcluster.ops.op_util import NUMERIC, Outputs, make_op

_REAL = tuple(d for d in NUMERIC if not d.is_complex)


def _top_k_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, k_t = inputs
    with_rank(k_t.shape, 0, "k")
    with_rank_at_least(x.shape, 1, "input")
    k = static_int(k_t)
    dims = shape_list(x.shape)
    dtype = x.dtype.base_dtype
    if dims is None:
        return [(dtype, TensorShape(None)), (dtypes.int32, TensorShape(None))]
    if k is not None and k < 0:
        raise ValueError(f"Need k >= 0, got {k}")
    if k is not None and dims[-1] is not None and dims[-1] < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {dims[-1]}")
    shape = TensorShape([*dims[:-1], k])
    return [(dtype, shape), (dtypes.int32, shape)]


def _in_top_k_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    predictions, targets, k = inputs
    p = with_rank(predictions.shape, 2, "predictions").as_list()
    t = with_rank(targets.shape, 1, "targets").as_list()
    with_rank(k.shape, 0, "k")
    return [(dtypes.bool_, TensorShape([merge_dim(p[0], t[0], "InTopKV2")]))]


def _bound_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    seq, values = inputs
    with_rank(seq.shape, 2, "sorted_inputs")
    with_rank(values.shape, 2, "values")
    return [(attrs["out_type"], values.shape)]


op_def_registry.register("TopKV2", _top_k_infer)
op_def_registry.register("InTopKV2", _in_top_k_infer)
op_def_registry.register("LowerBound", _bound_infer)
op_def_registry.register("UpperBound", _bound_infer)


def top_k(input: Any, k: Any = 1, sorted: bool = True, name: str | None = None) -> Any:
    """(values, indices) of the k largest entries along the last axis, largest first; equal
    values keep their order (the lower index comes first)."""
    with name_scope(name, "TopKV2", [input, k]) as scope:
        x = convert_to_tensor(input, name="input")
        check_dtype(x, _REAL, "TopKV2", "input")
        k_t = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        attrs = {"sorted": bool(sorted), "T": x.dtype.base_dtype}
        op = make_op("TopKV2", [x, k_t], attrs, name=scope)
    return TopKV2(op.outputs[0], op.outputs[1])


class TopKV2(NamedTuple):
    """(values, indices): TF's namedtuple, which Session.run gives back as one too."""

    values: Tensor
    indices: Tensor


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each target's prediction is among the k largest of its row (ties count in)."""
    with (
        name_scope(name, "in_top_k"),
        name_scope(None, "InTopKV2", [predictions, targets, k]) as scope,
    ):
        p = convert_to_tensor(predictions, dtype=dtypes.float32, name="predictions")
        t = index_tensor(targets, "targets")
        k_t = convert_to_tensor(k, dtype=t.dtype.base_dtype, name="k")
        attrs = {"T": t.dtype.base_dtype}
        return make_op("InTopKV2", [p, t, k_t], attrs, name=scope).outputs[0]


_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _static_axis(axis: Any) -> int:
    a = convert_to_tensor(axis, name="axis")
    value = tensor_util.constant_value(a)
    if a.shape.ndims not in (None, 0) or value is None:
        raise ValueError("axis must be a constant scalar")
    return int(value)


def _descending(values: Tensor, axis: int, return_argsort: bool) -> Tensor:
    # TF 1.15 builds `rank` even when the fast path leaves it unused: its op counts toward
    # the op seeds of random ops made later.
    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    static_rank = values.shape.ndims
    transposition: Any = None
    if axis == -1 or axis + 1 == static_rank:
        top_k_input = values
    else:
        axis_any: Any = axis + (static_rank or rank) if axis < 0 else axis
        if static_rank is not None:
            perm = np.r_[
                np.arange(axis_any),
                [static_rank - 1],
                np.arange(axis_any + 1, static_rank - 1),
                [axis_any],
            ]
            transposition = convert_to_tensor(perm, name="transposition")
        else:
            transposition = array_ops.concat(
                [
                    math_ops.range(axis_any),
                    [rank - 1],
                    math_ops.range(axis_any + 1, rank - 1),
                    [axis_any],
                ],
                axis=0,
            )
        top_k_input = array_ops.transpose(values, transposition)
    out_values, indices = top_k(top_k_input, k)
    result = indices if return_argsort else out_values
    if transposition is not None:
        result = array_ops.transpose(result, transposition)
    return result


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Tensor:
    if direction not in _DIRECTIONS:
        raise ValueError(f"{direction} should be one of {', '.join(_DIRECTIONS)}")
    axis_v = _static_axis(axis)
    v = convert_to_tensor(values, name="values")
    if direction == "DESCENDING":
        return _descending(v, axis_v, return_argsort)
    # The ascending order is the descending order of the negated values.
    result = _descending(math_ops.negative(v), axis_v, return_argsort)
    return result if return_argsort else math_ops.negative(result)


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None) -> Any:
    """The values sorted along `axis`."""
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(
    values: Any,
    axis: Any = -1,
    direction: str = "ASCENDING",
    stable: bool = False,
    name: str | None = None,
) -> Any:
    """The int32 indices that sort `values` along `axis` (equal values keep their order)."""
    del stable  # the order is always stable, as TF's top_k makes it
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


def searchsorted(
    sorted_sequence: Any,
    values: Any,
    side: str = "left",
    out_type: Any = dtypes.int32,
    name: str | None = None,
) -> Tensor:
    """Where each of `values` would go in the (last-axis sorted) `sorted_sequence`."""
    seq = convert_to_tensor(sorted_sequence, name="sorted_sequence")
    vals = convert_to_tensor(values, dtype=seq.dtype.base_dtype, name="values")
    out = dtypes.as_dtype(out_type).base_dtype
    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'.  Saw: {side}.")
    seq_2d = array_ops.reshape(seq, array_ops.stack([-1, array_ops.shape(seq)[-1]]))
    values_2d = array_ops.reshape(vals, array_ops.stack([-1, array_ops.shape(vals)[-1]]))
    op_type = "UpperBound" if side == "right" else "LowerBound"
    attrs = {"T": seq.dtype.base_dtype, "out_type": out}
    output = make_op(op_type, [seq_2d, values_2d], attrs, name=name or op_type).outputs[0]
    return array_ops.reshape(output, array_ops.shape(vals))


__all__ = ["argsort", "searchsorted", "sort"]
