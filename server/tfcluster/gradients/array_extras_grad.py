"""Gradients of BroadcastTo, IdentityN, EnsureShape and SparseMatMul, as TF's array_grad and
math_grad build them; Timestamp has none."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, math_ops


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op: Operation, grad: Tensor) -> Any:
    """The gradient summed over the broadcast dimensions, back to the input's shape."""
    x, broadcast_shape = op.inputs
    x_shape = array_ops.shape(x, out_type=broadcast_shape.dtype.base_dtype)
    _, axes = math_ops.broadcast_gradient_args(broadcast_shape, x_shape)
    summed = math_ops.reduce_sum(grad, axis=axes, keepdims=True)
    return [array_ops.reshape(summed, x_shape), None]


@RegisterGradient("IdentityN")
def _identity_n_grad(op: Operation, *grads: Tensor) -> Any:
    return list(grads)


@RegisterGradient("EnsureShape")
def _ensure_shape_grad(op: Operation, grad: Tensor) -> Any:
    return grad


@RegisterGradient("SparseMatMul")
def _sparse_matmul_grad(op: Operation, grad: Tensor) -> Any:
    """TF's: products of the gradient with the other operand; tf.matmul makes them
    SparseMatMul where an operand is marked sparse (a ReluGrad gradient counts as sparse)."""
    t_a, t_b = op._get_attr("transpose_a"), op._get_attr("transpose_b")
    a, b = op.inputs
    sparse = {id(a): op._get_attr("a_is_sparse"), id(b): op._get_attr("b_is_sparse")}
    sparse[id(grad)] = grad.op.type == "ReluGrad"

    def product(t1: Tensor, t2: Tensor, out: Any, ta: bool = False, tb: bool = False) -> Any:
        s1, s2 = sparse[id(t1)], sparse[id(t2)]
        if tb:
            t2, tb = array_ops.transpose(t2), False
        prod = math_ops.matmul(t1, t2, transpose_a=ta, a_is_sparse=s1, b_is_sparse=s2)
        return prod if prod.dtype == out else math_ops.cast(prod, out)

    da, db = a.dtype.base_dtype, b.dtype.base_dtype
    if not t_a and not t_b:
        return product(grad, b, da, tb=True), product(a, grad, db, ta=True)
    if not t_a and t_b:
        return product(grad, b, da), product(grad, a, db, ta=True)
    if t_a and not t_b:
        return product(b, grad, da, tb=True), product(a, grad, db)
    return product(b, grad, da, ta=True, tb=True), product(grad, a, db, ta=True, tb=True)


not_differentiable("Timestamp")
