"""Weights for losses and metrics: whether they broadcast to the values (a scalar, or the
values' rank with each dimension 1 or the values' own), checked while the graph is built
where shapes are known, else by an Assert at run time; and broadcasting them. Ops and
names as TF 1.15's weights_broadcast_ops makes them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import tensor_util
from tfcluster.framework.graph import Operation, Tensor, control_dependencies, convert_to_tensor
from tfcluster.framework.graph import name_scope as _name_scope
from tfcluster.ops import array_ops, control_flow_ops, logging_ops, math_ops, sets_ops

_ERROR_PREFIX = "weights can not be broadcast to values."


def _has_valid_dims(weights_shape: Tensor, values_shape: Tensor) -> Tensor:
    """Whether each weights dimension is 1 or the values' (the same rank is known)."""
    with _name_scope(None, "has_invalid_dims", (weights_shape, values_shape)) as scope:
        values_shape_2d = array_ops.expand_dims(values_shape, -1)
        valid_dims = array_ops.concat(
            (values_shape_2d, array_ops.ones_like(values_shape_2d)), axis=1
        )
        weights_shape_2d = array_ops.expand_dims(weights_shape, -1)
        invalid_dims = sets_ops.set_difference(weights_shape_2d, valid_dims)
        num_invalid_dims = array_ops.size(invalid_dims.values, name="num_invalid_dims")
        return math_ops.equal(0, num_invalid_dims, name=scope)


def _has_valid_nonscalar_shape(
    weights_rank: Tensor, weights_shape: Tensor, values_rank: Tensor, values_shape: Tensor
) -> Tensor:
    with _name_scope(
        None,
        "has_valid_nonscalar_shape",
        (weights_rank, weights_shape, values_rank, values_shape),
    ) as scope:
        is_same_rank = math_ops.equal(values_rank, weights_rank, name="is_same_rank")
        result: Tensor = control_flow_ops.cond(
            is_same_rank,
            lambda: _has_valid_dims(weights_shape, values_shape),
            lambda: is_same_rank,
            name=scope,
        )
        return result


def assert_broadcastable(weights: Any, values: Any) -> Operation:
    """A no-op when the shapes are known to be fine (ValueError when known to be wrong), else
    an Assert that checks them at run time."""
    with _name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        with _name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        weights_rank_static = tensor_util.constant_value(weights_rank)
        with _name_scope(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        values_rank_static = tensor_util.constant_value(values_rank)

        if weights_rank_static is not None and values_rank_static is not None:
            if int(weights_rank_static) == 0:
                return control_flow_ops.no_op(name="static_scalar_check_success")
            if int(weights_rank_static) != int(values_rank_static):
                raise ValueError(
                    f"{_ERROR_PREFIX} values.rank={values_rank_static}. "
                    f"weights.rank={weights_rank_static}. values.shape={values.shape}. "
                    f"weights.shape={weights.shape}."
                )
            weights_shape_static = tensor_util.constant_value(weights_shape)
            values_shape_static = tensor_util.constant_value(values_shape)
            if weights_shape_static is not None and values_shape_static is not None:
                for i in range(len(values_shape_static)):
                    if weights_shape_static[i] not in (1, values_shape_static[i]):
                        raise ValueError(
                            f"{_ERROR_PREFIX} Mismatch at dim {i}. "
                            f"values.shape={values_shape_static} "
                            f"weights.shape={weights_shape_static}."
                        )
                return control_flow_ops.no_op(name="static_dims_check_success")

        is_scalar = math_ops.equal(0, weights_rank, name="is_scalar")
        data = (
            _ERROR_PREFIX,
            "weights.shape=",
            weights.name,
            weights_shape,
            "values.shape=",
            values.name,
            values_shape,
            "is_scalar=",
            is_scalar,
        )
        is_valid_shape = control_flow_ops.cond(
            is_scalar,
            lambda: is_scalar,
            lambda: _has_valid_nonscalar_shape(
                weights_rank, weights_shape, values_rank, values_shape
            ),
            name="is_valid_shape",
        )
        return logging_ops.Assert(is_valid_shape, data, name=scope)


def broadcast_weights(weights: Any, values: Any) -> Tensor:
    """`weights` broadcast to the shape of `values` (as they are when the static shapes are
    already equal)."""
    with _name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        weights_shape = weights.shape
        values_shape = values.shape
        if (
            weights_shape.is_fully_defined()
            and values_shape.is_fully_defined()
            and weights_shape.is_compatible_with(values_shape)
        ):
            return weights
        with control_dependencies((assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


__all__ = ["assert_broadcastable", "broadcast_weights"]
