"""Gradient of MatrixSquareRoot (TF 1.15 registers none for MatrixLogarithm).

A = R R gives dA = R dR + dR R, so the gradient G of A solves the Sylvester equation
R^T G + G R^T = grad (TF's form: a transpose, not a conjugate transpose, for complex R); it is
solved as one linear system over the n*n entries, with Kronecker products."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation, Tensor
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, linalg_ops


def _kron(a: Tensor, b: Tensor, batch_shape: Tensor, n2: Tensor) -> Tensor:
    """Kronecker products of batches of n x n matrices: [..., n*n, n*n]."""
    left = array_ops.expand_dims(array_ops.expand_dims(a, -1), -3)  # [..., n, 1, n, 1]
    right = array_ops.expand_dims(array_ops.expand_dims(b, -3), -2)  # [..., 1, n, 1, n]
    return array_ops.reshape(left * right, array_ops.concat([batch_shape, [n2, n2]], 0))


@RegisterGradient("MatrixSquareRoot")
def _matrix_square_root_grad(op: Operation, grad: Tensor) -> Any:
    root = op.outputs[0]
    shape = array_ops.shape(root)
    n = shape[-1]
    batch_shape = shape[:-2]
    eye = linalg_ops.eye(n, dtype=root.dtype)
    root_t = linalg_ops.matrix_transpose(root)
    # Row-major vec: vec(A X B) = (A kron B^T) vec(X).
    system = _kron(root_t, eye, batch_shape, n * n) + _kron(eye, root, batch_shape, n * n)
    vec = array_ops.reshape(grad, array_ops.concat([batch_shape, [n * n, 1]], 0))
    return [array_ops.reshape(linalg_ops.matrix_solve(system, vec), shape)]
