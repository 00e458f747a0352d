"""Gradients of the linear-algebra ops, with TF's formulas (linalg_grad.py): inverse,
determinants, Cholesky, QR, SVD, eigh, the solves, band/diagonal ops, cross, einsum and the
matrix exponential."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, control_dependencies
from tfcluster.gradients.math_grad import reduce_to
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, constant_op, linalg_ops, math_ops


def _adjoint(t: Tensor) -> Tensor:
    # TF's gradients call tf.linalg.adjoint: its "adjoint" scope names the transpose.
    return linalg_ops.adjoint(t)


def _half(like: Tensor) -> Tensor:
    return constant_op.constant(0.5, dtype=like.dtype.base_dtype)


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op: Operation, grad: Tensor) -> Any:
    ainv = op.outputs[0]
    return [
        math_ops.negative(
            math_ops.matmul(ainv, math_ops.matmul(grad, ainv, adjoint_b=True), adjoint_a=True)
        )
    ]


def _append_two_ones(t: Tensor) -> Tensor:
    return array_ops.reshape(t, array_ops.concat([array_ops.shape(t), [1, 1]], 0))


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op: Operation, grad: Tensor) -> Any:
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = linalg_ops.matrix_inverse(a, adjoint=True)
    return [_append_two_ones(grad * c) * a_adj_inv]


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op: Operation, _: Tensor, grad_b: Tensor) -> Any:
    a_adj_inv = linalg_ops.matrix_inverse(op.inputs[0], adjoint=True)
    return [_append_two_ones(grad_b) * a_adj_inv]


@RegisterGradient("Cholesky")
def _cholesky_grad(op: Operation, grad: Tensor) -> Any:
    # TF's _CholeskyGrad, op for op (its two Shape ops, Python 0.5 factors, operators).
    l = op.outputs[0]
    num_rows = array_ops.shape(l)[-1]
    batch_shape = array_ops.shape(l)[:-2]
    l_inverse = linalg_ops._gen_triangular_solve(
        l, linalg_ops.eye(num_rows, batch_shape=batch_shape, dtype=l.dtype.base_dtype)
    )
    middle = math_ops.matmul(l, grad, adjoint_a=True)
    middle = linalg_ops.matrix_set_diag(middle, 0.5 * linalg_ops.matrix_diag_part(middle))
    middle = linalg_ops.matrix_band_part(middle, -1, 0)
    grad_a = math_ops.matmul(math_ops.matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += _adjoint(grad_a)
    return [grad_a * 0.5]


def _triangular_solve_right(x: Tensor, r: Tensor) -> Tensor:
    """x r^-1 for upper-triangular r."""
    return _adjoint(linalg_ops._gen_triangular_solve(r, _adjoint(x), lower=False, adjoint=False))


@RegisterGradient("Qr")
def _qr_grad(op: Operation, dq: Tensor, dr: Tensor) -> Any:
    q, r = op.outputs
    dims = r.shape.as_list() if r.shape.ndims is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("QrGrad not implemented with dynamic shapes.")
    qdims = q.shape.as_list()
    if dims[-2] > dims[-1] and qdims[-2] == qdims[-1]:
        raise NotImplementedError(
            "QrGrad not implemented when nrows > ncols and full_matrices is true."
        )
    if dims[-2] < dims[-1]:
        raise NotImplementedError("QrGrad not implemented when ncols > nrows.")
    qdq = math_ops.matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - _adjoint(qdq)
    rdr = math_ops.matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - _adjoint(rdr)
    tril = linalg_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
    grad_a = math_ops.matmul(q, dr + _triangular_solve_right(tril, r))
    grad_b = _triangular_solve_right(dq - math_ops.matmul(q, qdq), r)
    return [grad_a + grad_b]


def _safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    return x * math_ops.reciprocal(x * x + constant_op.constant(epsilon, dtype=x.dtype))


@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_grad(op: Operation, grad_e: Tensor, grad_v: Tensor) -> Any:
    e = op.outputs[0]
    with control_dependencies([grad_e, grad_v]):
        if op._get_attr("compute_v"):
            v = op.outputs[1]
            f = linalg_ops.matrix_set_diag(
                math_ops.reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                array_ops.zeros_like(e),
            )
            grad_a = math_ops.matmul(
                v,
                math_ops.matmul(
                    linalg_ops.matrix_diag(grad_e) + f * math_ops.matmul(v, grad_v, adjoint_a=True),
                    v,
                    adjoint_b=True,
                ),
            )
        else:
            _, v = linalg_ops.self_adjoint_eig(op.inputs[0])
            grad_a = math_ops.matmul(
                v, math_ops.matmul(linalg_ops.matrix_diag(grad_e), v, adjoint_b=True)
            )
        # The op reads only the lower triangle: symmetrise and keep that triangle.
        grad_a = linalg_ops.matrix_band_part(grad_a + _adjoint(grad_a), -1, 0)
        return [
            linalg_ops.matrix_set_diag(grad_a, _half(grad_a) * linalg_ops.matrix_diag_part(grad_a))
        ]


@RegisterGradient("Svd")
def _svd_grad(op: Operation, grad_s: Tensor, grad_u: Tensor, grad_v: Tensor) -> Any:
    a = op.inputs[0]
    grad_s_mat = linalg_ops.matrix_diag(grad_s)
    if not op._get_attr("compute_uv"):
        s, u, v = linalg_ops.svd(a, compute_uv=True)
        grad_a = math_ops.matmul(u, math_ops.matmul(grad_s_mat, v, adjoint_b=True))
        grad_a.set_shape(a.shape)
        return [grad_a]
    full_matrices = op._get_attr("full_matrices")
    dims = a.shape.as_list() if a.shape.ndims is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError(
            "SVD gradient has not been implemented for input with unknown inner matrix shape."
        )
    m, n = dims[-2], dims[-1]
    s, u, v = op.outputs
    use_adjoint = m > n
    if use_adjoint:
        # The gradient of A^H = V S U^H, transposed back at the end.
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    with control_dependencies([grad_s, grad_u, grad_v]):
        if full_matrices and abs(m - n) > 1:
            raise NotImplementedError(
                "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True"
            )
        s_mat = linalg_ops.matrix_diag(s)
        s_2 = math_ops.square(s)
        # Infinite (NaN) where singular values repeat, as in TF.
        f = linalg_ops.matrix_set_diag(
            _safe_reciprocal(array_ops.expand_dims(s_2, -2) - array_ops.expand_dims(s_2, -1)),
            array_ops.zeros_like(s),
        )
        s_inv_mat = linalg_ops.matrix_diag(_safe_reciprocal(s))
        v1 = v[..., :, :m]
        grad_v1 = grad_v[..., :, :m]
        u_gu = math_ops.matmul(u, grad_u, adjoint_a=True)
        v_gv = math_ops.matmul(v1, grad_v1, adjoint_a=True)
        f_u = f * u_gu
        f_v = f * v_gv
        term1_nouv = (
            grad_s_mat
            + math_ops.matmul(f_u + _adjoint(f_u), s_mat)
            + math_ops.matmul(s_mat, f_v + _adjoint(f_v))
        )
        term1 = math_ops.matmul(u, math_ops.matmul(term1_nouv, v1, adjoint_b=True))
        if m == n:
            grad_a_t = term1
        else:
            gv1t = _adjoint(grad_v1)
            gv1t_v1 = math_ops.matmul(gv1t, v1)
            term2_nous = gv1t - math_ops.matmul(gv1t_v1, v1, adjoint_b=True)
            if full_matrices:
                v2 = v[..., :, m:n]
                grad_v2 = grad_v[..., :, m:n]
                v1t_gv2 = math_ops.matmul(v1, grad_v2, adjoint_a=True)
                term2_nous = term2_nous - math_ops.matmul(v1t_gv2, v2, adjoint_b=True)
            u_s_inv = math_ops.matmul(u, s_inv_mat)
            grad_a_t = term1 + math_ops.matmul(u_s_inv, term2_nous)
        grad_a = _adjoint(grad_a_t) if use_adjoint else grad_a_t
        grad_a.set_shape(a.shape)
        return [grad_a]


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op: Operation, grad: Tensor) -> Any:
    a, c = op.inputs[0], op.outputs[0]
    adjoint_a = op._get_attr("adjoint")
    grad_b = linalg_ops.matrix_solve(a, grad, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = math_ops.negative(math_ops.matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = math_ops.negative(math_ops.matmul(grad_b, c, adjoint_b=True))
    return [grad_a, grad_b]


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op: Operation, grad: Tensor) -> Any:
    a, c = op.inputs[0], op.outputs[0]
    adjoint_a, lower_a = op._get_attr("adjoint"), op._get_attr("lower")
    grad_b = linalg_ops._gen_triangular_solve(a, grad, lower=lower_a, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = math_ops.negative(math_ops.matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = math_ops.negative(math_ops.matmul(grad_b, c, adjoint_b=True))
    band = (-1, 0) if lower_a else (0, -1)
    return [linalg_ops.matrix_band_part(grad_a, *band), grad_b]


@RegisterGradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op: Operation, grad: Tensor) -> Any:
    """Differentiates the normal-equation form of the solution (what TF's fast path is)."""
    from tfcluster.gradients.gradients_impl import gradients

    a, b, l2 = op.inputs
    dims = a.shape.as_list() if a.shape.ndims is not None else None
    if dims is None or not a.shape.is_fully_defined():
        raise NotImplementedError("MatrixSolveLs gradient needs a matrix of static shape")
    l2_value = math_ops.cast(l2, a.dtype.base_dtype)
    x = linalg_ops.matrix_solve_ls(a, b, l2_value, fast=True)
    grad_a, grad_b = gradients([x], [a, b], grad_ys=[grad])
    return [grad_a, grad_b, None]


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op: Operation, grad: Tensor) -> Any:
    return [linalg_ops.matrix_band_part(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(op: Operation, grad: Tensor) -> Any:
    return [linalg_ops.matrix_diag_part(grad)]


@RegisterGradient("MatrixDiagV2")
@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op: Operation, grad: Tensor) -> Any:
    align = op._get_attr("align") if op.type == "MatrixDiagV3" else "LEFT_LEFT"
    part = linalg_ops.matrix_diag_part(grad, k=op.inputs[1], align=align)
    return [part, None, None, None, None]


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op: Operation, grad: Tensor) -> Any:
    return [linalg_ops.matrix_set_diag(array_ops.zeros_like(op.inputs[0]), grad)]


@RegisterGradient("MatrixDiagPartV2")
@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op: Operation, grad: Tensor) -> Any:
    align = op._get_attr("align") if op.type == "MatrixDiagPartV3" else "LEFT_LEFT"
    zeros = array_ops.zeros_like(op.inputs[0])
    return [linalg_ops.matrix_set_diag(zeros, grad, k=op.inputs[1], align=align), None, None]


@RegisterGradient("MatrixSetDiag")
def _matrix_set_diag_grad(op: Operation, grad: Tensor) -> Any:
    diag = op.inputs[1]
    return [
        linalg_ops.matrix_set_diag(grad, array_ops.zeros_like(diag)),
        linalg_ops.matrix_diag_part(grad),
    ]


@RegisterGradient("MatrixSetDiagV2")
@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op: Operation, grad: Tensor) -> Any:
    align = op._get_attr("align") if op.type == "MatrixSetDiagV3" else "LEFT_LEFT"
    diag, k = op.inputs[1], op.inputs[2]
    return [
        linalg_ops.matrix_set_diag(grad, array_ops.zeros_like(diag), k=k, align=align),
        linalg_ops.matrix_diag_part(grad, k=k, align=align),
        None,
    ]


@RegisterGradient("Diag")
def _diag_grad(op: Operation, grad: Tensor) -> Any:
    return [linalg_ops.tensor_diag_part(grad)]


@RegisterGradient("DiagPart")
def _diag_part_grad(op: Operation, grad: Tensor) -> Any:
    return [linalg_ops.tensor_diag(grad)]


@RegisterGradient("Cross")
def _cross_grad(op: Operation, grad: Tensor) -> Any:
    u, v = op.inputs
    return [linalg_ops.cross(v, grad), linalg_ops.cross(grad, u)]


@RegisterGradient("MatrixExponential")
def _matrix_exponential_grad(op: Operation, grad: Tensor) -> Any:
    """The Frechet derivative by the block identity
    exp([[A^H, G], [0, A^H]]) = [[exp(A^H), L(A^H, G)], [0, exp(A^H)]]."""
    a = op.inputs[0]
    a_h = _adjoint(a)
    zeros = array_ops.zeros_like(a)
    top = array_ops.concat([a_h, grad], -1)
    bottom = array_ops.concat([zeros, a_h], -1)
    block = linalg_ops.matrix_exponential(array_ops.concat([top, bottom], -2))
    n = array_ops.shape(a)[-1]
    rank = array_ops.rank(a)
    begin = array_ops.concat(
        [array_ops.zeros([rank - 2], dtypes.int32), array_ops.stack([0, n])], 0
    )
    size = array_ops.concat([array_ops.fill([rank - 2], -1), array_ops.stack([n, n])], 0)
    return [array_ops.slice(block, begin, size)]


@RegisterGradient("Einsum")
def _einsum_grad(op: Operation, grad: Tensor) -> Any:
    """d/dx_i: the output gradient contracted with the other inputs back to x_i's labels;
    labels only x_i has (summed away) are broadcast back, broadcast dims summed."""
    equation = op._get_attr("equation")
    inputs = list(op.inputs)
    if "..." in equation:
        ranks = [t.shape.ndims for t in inputs]
        if any(r is None for r in ranks):
            raise NotImplementedError("Einsum gradient needs inputs of known rank under '...'")
        equation = linalg_ops.expand_ellipsis(equation, [r for r in ranks if r is not None])
    lhs, out = equation.split("->")
    subs = lhs.split(",")
    grads: list[Tensor | None] = []
    for i, (x, s) in enumerate(zip(inputs, subs)):
        if len(set(s)) != len(s):
            raise NotImplementedError(
                f"Einsum gradient does not support repeated labels in an input ('{s}')"
            )
        others = [t for j, t in enumerate(inputs) if j != i]
        other_subs = [t for j, t in enumerate(subs) if j != i]
        seen = set(out).union(*other_subs) if other_subs else set(out)
        kept = "".join(c for c in s if c in seen)
        g = linalg_ops.einsum(",".join([out, *other_subs]) + "->" + kept, grad, *others)
        if kept != s:
            g = linalg_ops.einsum(f"{kept},{s}->{s}", g, array_ops.ones_like(x))
        grads.append(reduce_to(g, x, g))
    return grads
