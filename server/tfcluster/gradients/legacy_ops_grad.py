"""Gradients of TF 1.15's older op types (ops/legacy_ops.py), as TF 1.15's own gradient
functions build them; those equal to a newer op's call its gradient function."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, colocate_with
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients import array_grad, registry
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.op_util import make_op


def _newer(op_type: str) -> Any:
    # Looked up when called: the newer op's module may load after this one.
    return registry.lookup(op_type)


def _op(op_type: str, inputs: list[Any], attrs: dict[str, Any]) -> Tensor:
    return make_op(op_type, inputs, attrs).outputs[0]


@RegisterGradient("BatchMatMulV2")
def _batch_matmul_v2_grad(op: Operation, grad: Tensor) -> Any:
    """BatchMatMul's gradient, summed over the batch dimensions that were broadcast."""
    x, y = op.inputs
    grad_x, grad_y = _newer("BatchMatMul")(op, grad)
    sx, sy = x.shape, y.shape
    if sx.is_fully_defined() and sy.is_fully_defined() and sx == sy:
        return grad_x, grad_y
    shape_x = array_ops.shape(x)
    shape_y = array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(shape_x[:-2], shape_y[:-2])
    grad_x = array_ops.reshape(math_ops.reduce_sum(grad_x, rx), shape_x)
    grad_y = array_ops.reshape(math_ops.reduce_sum(grad_y, ry), shape_y)
    return grad_x, grad_y


@RegisterGradient("Concat")
def _concat_grad(op: Operation, grad: Tensor) -> Any:
    return array_grad.concat_grad(op, grad, start=1, end=len(op.inputs), dim_index=0)


@RegisterGradient("Gather")
def _gather_grad(op: Operation, grad: Tensor) -> Any:
    params, indices = op.inputs
    with colocate_with(params):
        params_shape = array_ops.shape(params, out_type=dtypes.int64)
        params_shape = math_ops.cast(params_shape, dtypes.int32)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values = array_grad.reshape_quietly(grad, array_ops.concat([size, params_shape[1:]], 0))
    return [IndexedSlices(values, array_ops.reshape(indices, size), params_shape), None]


@RegisterGradient("TopK")
def _top_k_grad(op: Operation, grad: Tensor, indices_grad: Tensor) -> Any:
    return [_newer("TopKV2")(op, grad, indices_grad)[0]]


@RegisterGradient("Reverse")
def _reverse_grad(op: Operation, grad: Tensor) -> Any:
    dims = op.inputs[1]
    return [_op("Reverse", [grad, dims], {"T": grad.dtype.base_dtype}), None]


@RegisterGradient("Inv")
def _inv_grad(op: Operation, grad: Tensor) -> Any:
    y = op.outputs[0]
    return [_op("InvGrad", [y, grad], {"T": y.dtype.base_dtype})]


@RegisterGradient("InvGrad")
def _inv_grad_grad(op: Operation, grad: Tensor) -> Any:
    return _newer("ReciprocalGrad")(op, grad)


@RegisterGradient("BiasAddV1")
def _bias_add_v1_grad(op: Operation, grad: Tensor) -> Any:
    dims = math_ops.range(array_ops.rank(grad) - 1)
    return grad, math_ops.reduce_sum(grad, dims)


def _pool_v2_attrs(op: Operation) -> dict[str, Any]:
    return {
        "T": op._get_attr("T"),
        "padding": op._get_attr("padding"),
        "data_format": op._get_attr("data_format"),
    }


@RegisterGradient("MaxPoolV2")
def _max_pool_v2_grad(op: Operation, grad: Tensor) -> Any:
    x, ksize, strides = op.inputs
    g = _op("MaxPoolGradV2", [x, op.outputs[0], grad, ksize, strides], _pool_v2_attrs(op))
    return [g, None, None]


@RegisterGradient("MaxPoolGradV2")
def _max_pool_grad_v2_grad(op: Operation, grad: Tensor) -> Any:
    x, y, _, ksize, strides = op.inputs
    gg = _op("MaxPoolGradGradV2", [x, y, grad, ksize, strides], _pool_v2_attrs(op))
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), gg, None, None]


@RegisterGradient("ConjugateTranspose")
def _conjugate_transpose_grad(op: Operation, grad: Tensor) -> Any:
    inverse = array_ops.invert_permutation(op.inputs[1])
    attrs = {"T": grad.dtype.base_dtype, "Tperm": inverse.dtype.base_dtype}
    return [_op("ConjugateTranspose", [grad, inverse], attrs), None]


@RegisterGradient("NthElement")
def _nth_element_grad(op: Operation, grad: Tensor) -> Any:
    x, y = op.inputs[0], op.outputs[0]
    hits = math_ops.cast(math_ops.equal(array_ops.expand_dims(y, -1), x), grad.dtype.base_dtype)
    grad = array_ops.expand_dims(grad, -1)
    chosen = array_ops.expand_dims(math_ops.reduce_sum(hits, -1), -1)
    return [math_ops.divide(hits, chosen) * grad, None]


@RegisterGradient("RefIdentity")
def _ref_identity_grad(op: Operation, grad: Tensor) -> Any:
    return [grad]


@RegisterGradient("ScatterNdNonAliasingAdd")
def _scatter_nd_non_aliasing_add_grad(op: Operation, grad: Tensor) -> Any:
    return [grad, None, array_ops.gather_nd(grad, op.inputs[1])]


@RegisterGradient("SparseDenseCwiseAdd")
def _sparse_dense_add_grad(op: Operation, grad: Tensor) -> Any:
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is currently not implemented yet.")


def _sparse_dense_mul_or_div_grad(op: Operation, grad: Tensor, is_mul: bool) -> Any:
    x_indices, x_values, x_shape, y = op.inputs
    y_shape = math_ops.cast(array_ops.shape(y), dtypes.int64)
    pad = array_ops.size(x_shape) - array_ops.size(y_shape)
    padded_y_shape = array_ops.concat(
        [array_ops.ones(array_ops.expand_dims(pad, 0), dtypes.int64), y_shape], 0
    )
    scaling = math_ops.floordiv(x_shape, padded_y_shape)
    scaled = math_ops.floordiv(x_indices, scaling)
    scaled = array_ops.slice(scaled, array_ops.stack([0, pad]), [-1, -1])
    dense = array_ops.gather_nd(y, scaled)
    if is_mul:
        dx = grad * dense
        dy_values = grad * x_values
    else:
        dx = grad / dense
        dy_values = grad * (-x_values / math_ops.square(dense))
    dy = array_ops.scatter_nd(scaled, dy_values, y_shape)
    return (None, dx, None, dy)


@RegisterGradient("SparseDenseCwiseMul")
def _sparse_dense_mul_grad(op: Operation, grad: Tensor) -> Any:
    return _sparse_dense_mul_or_div_grad(op, grad, True)


@RegisterGradient("SparseDenseCwiseDiv")
def _sparse_dense_div_grad(op: Operation, grad: Tensor) -> Any:
    return _sparse_dense_mul_or_div_grad(op, grad, False)


@RegisterGradient("BatchNormWithGlobalNormalization")
def _batch_norm_global_grad(op: Operation, grad: Tensor) -> Any:
    t, m, v, _, gamma = op.inputs
    attrs = {
        "T": t.dtype.base_dtype,
        "variance_epsilon": op._get_attr("variance_epsilon"),
        "scale_after_normalization": op._get_attr("scale_after_normalization"),
    }
    g = make_op("BatchNormWithGlobalNormalizationGrad", [t, m, v, gamma, grad], attrs)
    dx, dm, dv, db, dg = g.outputs
    return dx, dm, dv, db, dg


for _op_type in ("ApproximateEqual", "PopulationCount", "DecodePaddedRaw"):
    not_differentiable(_op_type)
