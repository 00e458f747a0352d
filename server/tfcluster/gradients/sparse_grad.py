"""Gradients of the sparse ops, as TF's sparse_grad.py: with respect to the values (and the
dense operands); indices and shapes have none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, get_default_graph
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops, sparse_ops

for _op in (
    "SparseAddGrad",
    "SparseConcat",
    "StringSplit",
):
    not_differentiable(_op)


@RegisterGradient("SparseReorder")
def _reorder_grad(op: Operation, unused_indices_grad: Any, values_grad: Tensor) -> list[Any]:
    input_indices, _, input_shape = op.inputs
    n = array_ops.shape(input_indices)[0]
    entries = math_ops.range(n)
    ordered = sparse_ops.sparse_reorder(SparseTensor(input_indices, entries, input_shape))
    inverse = array_ops.invert_permutation(ordered.values)
    return [None, array_ops.gather(values_grad, inverse), None]


@RegisterGradient("SparseAdd")
def _add_grad(op: Operation, *grads: Any) -> list[Any]:
    val_grad = grads[1]
    a_indices, b_indices = op.inputs[0], op.inputs[3]
    sum_indices = op.outputs[0]
    grad_op = get_default_graph().create_op(
        "SparseAddGrad",
        [val_grad, a_indices, b_indices, sum_indices],
        {"T": val_grad.dtype.base_dtype},
        name="SparseAddGrad",
    )
    a_grad, b_grad = grad_op.outputs
    a_grad.set_shape(op.inputs[1].shape)
    b_grad.set_shape(op.inputs[4].shape)
    return [None, a_grad, None, None, b_grad, None, None]


@RegisterGradient("SparseTensorDenseAdd")
def _dense_add_grad(op: Operation, out_grad: Tensor) -> list[Any]:
    return [None, array_ops.gather_nd(out_grad, op.inputs[0]), None, out_grad]


def _reduced_shape(shape: Tensor, axes: Tensor) -> Tensor:
    """shape with the reduced axes set to 1 (TF's math_ops.reduced_shape), int64."""
    rank = math_ops.cast(array_ops.size(shape), dtypes.int32)
    axes = math_ops.floormod(math_ops.add(axes, rank), rank)
    positions = math_ops.range(0, rank)
    reduced = math_ops.reduce_any(
        math_ops.equal(array_ops.expand_dims(positions, 1), array_ops.expand_dims(axes, 0)), 1
    )
    return array_ops.where(reduced, array_ops.ones_like(shape), shape)


@RegisterGradient("SparseReduceSum")
def _reduce_sum_grad(op: Operation, out_grad: Tensor) -> list[Any]:
    sp_indices, _, sp_shape, axes = op.inputs
    kept = _reduced_shape(sp_shape, axes)
    reshaped = array_ops.reshape(out_grad, kept)
    scale = math_ops.floordiv(sp_shape, kept)
    return [None, array_ops.gather_nd(reshaped, math_ops.floordiv(sp_indices, scale)), None, None]


@RegisterGradient("SparseSlice")
def _slice_grad(op: Operation, *grads: Any) -> list[Any]:
    val_grad = grads[1]
    grad_op = get_default_graph().create_op(
        "SparseSliceGrad",
        [val_grad, op.inputs[0], op.inputs[3], op.outputs[0]],
        {"T": val_grad.dtype.base_dtype},
        name="SparseSliceGrad",
    )
    g = grad_op.outputs[0]
    g.set_shape(op.inputs[1].shape)
    return [None, g, None, None, None]


@RegisterGradient("SparseTensorDenseMatMul")
def _matmul_grad(op: Operation, grad: Tensor) -> list[Any]:
    a_indices, a_values, a_shape, b = op.inputs
    adj_a = bool(op._get_attr("adjoint_a"))
    adj_b = bool(op._get_attr("adjoint_b"))
    if a_values.dtype.base_dtype != b.dtype.base_dtype:
        raise TypeError(
            "SparseTensorDenseMatMul op received operands with different types: "
            f"{a_values.dtype.base_dtype} and {b.dtype.base_dtype}"
        )
    if a_values.dtype.base_dtype.is_complex:
        raise NotImplementedError("SparseTensorDenseMatMul op does not support complex gradients.")
    b_grad = sparse_ops.sparse_tensor_dense_matmul(
        SparseTensor(a_indices, a_values, a_shape), grad, adjoint_a=not adj_a
    )
    if adj_b:
        b_grad = array_ops.transpose(b_grad)
    rows = a_indices[:, 0]
    cols = a_indices[:, 1]
    parts_a = array_ops.gather(grad, cols if adj_a else rows)
    parts_b = array_ops.gather(array_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    a_values_grad = math_ops.reduce_sum(parts_a * parts_b, axis=1)
    return [None, a_values_grad, None, b_grad]


@RegisterGradient("SparseSoftmax")
def _softmax_grad(op: Operation, grad: Tensor) -> list[Any]:
    indices, _, shape = op.inputs
    out_vals = op.outputs[0]
    product = SparseTensor(indices, out_vals * grad, shape)
    sums = sparse_ops.sparse_reduce_sum(product, [-1], keepdims=True)
    # grad - sum(grad * softmax) over each row, at the stored entries only.
    row_keys = indices[:, :-1]
    zeros_col = array_ops.zeros(
        array_ops.stack([array_ops.shape(indices)[0], 1]), dtype=dtypes.int64
    )
    row_index = array_ops.concat([row_keys, zeros_col], 1)
    row_sums = array_ops.gather_nd(sums, row_index)
    return [None, (grad - row_sums) * out_vals, None]


@RegisterGradient("SparseFillEmptyRows")
def _fill_empty_rows_grad(op: Operation, *grads: Any) -> list[Any]:
    reverse_index_map = op.outputs[3]
    grad_values = grads[1]
    grad_op = get_default_graph().create_op(
        "SparseFillEmptyRowsGrad",
        [reverse_index_map, grad_values],
        {"T": grad_values.dtype.base_dtype},
        name="SparseFillEmptyRowsGrad",
    )
    d_values, d_default = grad_op.outputs
    return [None, d_values, None, d_default]


@RegisterGradient("SparseToDense")
def _to_dense_grad(op: Operation, grad: Tensor) -> list[Any]:
    sparse_indices, output_shape, _, _ = op.inputs
    values_grad = array_ops.gather_nd(grad, sparse_indices)
    default_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(values_grad)
    return [
        array_ops.zeros_like(sparse_indices),
        array_ops.zeros_like(output_shape),
        values_grad,
        default_grad,
    ]


# TF 1.15 registers these to raise NotImplementedError, with one output gradient in their
# signature: tf.gradients passes both outputs' gradients, so the call fails with TypeError
# before, there as here.
def _sparse_sparse_extremum_grad(op: Operation, grad: Tensor) -> Any:
    raise NotImplementedError(f"Gradient for {op.type} is currently not implemented yet.")


for _op in ("SparseSparseMaximum", "SparseSparseMinimum"):
    RegisterGradient(_op)(_sparse_sparse_extremum_grad)
