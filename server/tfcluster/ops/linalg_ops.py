"""Linear algebra (tf.linalg and the tf.matrix_* / tf.* aliases of TF 1.15): the op types of
gen_linalg_ops with their static shapes, and the functions TF builds from them (eye, norm,
trace, adjoint, matvec, logdet, cholesky_solve, lstsq, tensordot, einsum)."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, constant_op, counting_ops, math_ops
from tfcluster.ops.infer_util import (
    check_dtype,
    shape_list,
    static_int,
    static_ints,
    with_rank_at_least,
)
from tfcluster.ops.op_util import FLOATS, Outputs, make_op

_FLOAT_COMPLEX = (*FLOATS, dtypes.complex64, dtypes.complex128)
_LINALG_TYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


# ---- shape inference ------------------------------------------------------------------------
def _matrix_dims(t: Tensor, what: str) -> tuple[list[int | None], int | None, int | None] | None:
    with_rank_at_least(t.shape, 2, what)
    dims = shape_list(t.shape)
    if dims is None:
        return None
    return dims[:-2], dims[-2], dims[-1]


def _square_dims(t: Tensor, what: str) -> tuple[list[int | None], int | None] | None:
    parts = _matrix_dims(t, what)
    if parts is None:
        return None
    batch, m, n = parts
    if m is not None and n is not None and m != n:
        raise ValueError(f"Dimensions must be equal, but are {m} and {n} for '{what}'")
    return batch, m if m is not None else n


def _same_square_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _square_dims(inputs[0], "input")
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _determinant_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    parts = _square_dims(inputs[0], "input")
    dtype = inputs[0].dtype.base_dtype
    return [(dtype, TensorShape(None if parts is None else parts[0]))]


def _log_determinant_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return _determinant_infer(inputs, attrs) * 2


def _qr_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    parts = _matrix_dims(inputs[0], "input")
    dtype = inputs[0].dtype.base_dtype
    if parts is None:
        return [(dtype, TensorShape(None))] * 2
    batch, m, n = parts
    if attrs.get("full_matrices"):
        k = m
    else:
        k = None if m is None or n is None else min(m, n)
    return [(dtype, TensorShape([*batch, m, k])), (dtype, TensorShape([*batch, k, n]))]


def _svd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    parts = _matrix_dims(inputs[0], "input")
    dtype = inputs[0].dtype.base_dtype
    real = dtype.real_dtype
    if parts is None:
        return [(real, TensorShape(None)), (dtype, TensorShape(None)), (dtype, TensorShape(None))]
    batch, m, n = parts
    p = None if m is None or n is None else min(m, n)
    if not attrs.get("compute_uv", True):
        return [
            (real, TensorShape([*batch, p])),
            (dtype, TensorShape([0])),
            (dtype, TensorShape([0])),
        ]
    full = attrs.get("full_matrices", False)
    return [
        (real, TensorShape([*batch, p])),
        (dtype, TensorShape([*batch, m, m if full else p])),
        (dtype, TensorShape([*batch, n, n if full else p])),
    ]


def _eig_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    parts = _square_dims(inputs[0], "input")
    dtype = inputs[0].dtype.base_dtype
    if parts is None:
        return [(dtype, TensorShape(None))] * 2
    batch, n = parts
    v = TensorShape([*batch, n, n]) if attrs.get("compute_v", True) else TensorShape([0])
    return [(dtype, TensorShape([*batch, n])), (dtype, v)]


def _solve_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    matrix, rhs = inputs[0], inputs[1]
    parts = _square_dims(matrix, "matrix")
    rhs_parts = _matrix_dims(rhs, "rhs")
    dtype = rhs.dtype.base_dtype
    if parts is None or rhs_parts is None:
        return [(dtype, rhs.shape)]
    batch, n = parts
    rhs_batch, rows, k = rhs_parts
    if n is not None and rows is not None and n != rows:
        raise ValueError(f"Dimensions must be equal, but are {n} and {rows} for 'rhs'")
    merged = TensorShape(batch).merge_with(TensorShape(rhs_batch)).as_list()
    return [(dtype, TensorShape([*merged, n if n is not None else rows, k]))]


def _solve_ls_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    parts, rhs_parts = _matrix_dims(inputs[0], "matrix"), _matrix_dims(inputs[1], "rhs")
    dtype = inputs[1].dtype.base_dtype
    if parts is None or rhs_parts is None:
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([*parts[0], parts[2], rhs_parts[2]]))]


def _lu_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    parts = _square_dims(inputs[0], "input")
    dtype = inputs[0].dtype.base_dtype
    idx = attrs["output_idx_type"]
    if parts is None:
        return [(dtype, TensorShape(None)), (idx, TensorShape(None))]
    return [(dtype, inputs[0].shape), (idx, TensorShape([*parts[0], parts[1]]))]


def _band_part_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank_at_least(inputs[0].shape, 2, "input")
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _k_static(t: Tensor | None) -> tuple[int, int] | None:
    if t is None:
        return (0, 0)
    ks = static_ints(t)
    if ks is None or len(ks) not in (1, 2):
        return None
    return ks[0], ks[-1]


def _diag_len(m: int, n: int, d: int) -> int:
    return max(0, min(m + min(0, d), n - max(0, d)))


def _matrix_diag_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    diagonal = inputs[0]
    dtype = diagonal.dtype.base_dtype
    with_rank_at_least(diagonal.shape, 1, "diagonal")
    ks = _k_static(inputs[1] if len(inputs) > 1 else None)
    dims = shape_list(diagonal.shape)
    if dims is None or ks is None:
        return [(dtype, TensorShape(None))]
    lo, hi = ks
    batch = dims[:-1] if lo == hi else dims[:-2]
    max_len = dims[-1]
    rows = static_int(inputs[2]) if len(inputs) > 2 else -1
    cols = static_int(inputs[3]) if len(inputs) > 3 else -1
    if max_len is None or rows is None or cols is None:
        return [(dtype, TensorShape([*batch, None, None]))]
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    return [(dtype, TensorShape([*batch, rows, cols]))]


def _matrix_diag_part_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    dtype = x.dtype.base_dtype
    parts = _matrix_dims(x, "input")
    ks = _k_static(inputs[1] if len(inputs) > 1 else None)
    if parts is None or ks is None:
        return [(dtype, TensorShape(None))]
    batch, m, n = parts
    lo, hi = ks
    length = None if m is None or n is None else max(_diag_len(m, n, d) for d in range(lo, hi + 1))
    if lo == hi:
        return [(dtype, TensorShape([*batch, length]))]
    return [(dtype, TensorShape([*batch, hi - lo + 1, length]))]


def _matrix_set_diag_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank_at_least(inputs[0].shape, 2, "input")
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _diag_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    with_rank_at_least(inputs[0].shape, 1, "diagonal")
    dims = shape_list(inputs[0].shape)
    dtype = inputs[0].dtype.base_dtype
    return [(dtype, TensorShape(None if dims is None else dims + dims))]


def _diag_part_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dims = shape_list(inputs[0].shape)
    dtype = inputs[0].dtype.base_dtype
    if dims is None:
        return [(dtype, TensorShape(None))]
    if not dims or len(dims) % 2:
        raise ValueError(f"Input must have even rank >= 2, got rank {len(dims)}")
    half = len(dims) // 2
    return [(dtype, TensorShape(dims[:half]).merge_with(TensorShape(dims[half:])))]


def _cross_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    a, b = inputs
    shape = a.shape.merge_with(b.shape)
    if shape.ndims is not None:
        if shape.ndims < 1:
            raise ValueError("Shape must be at least rank 1 for 'Cross'")
        last = shape.as_list()[-1]
        if last is not None and last != 3:
            raise ValueError(f"Dimension must be 3 but is {last} for 'Cross'")
    return [(a.dtype.base_dtype, shape)]


def _einsum_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = inputs[0].dtype.base_dtype
    equation = attrs["equation"]
    shapes = [shape_list(t.shape) for t in inputs]
    if any(s is None for s in shapes):
        return [(dtype, TensorShape(None))]
    explicit = expand_ellipsis(equation, [len(s) for s in shapes if s is not None])
    in_subs, out_subs = explicit.split("->")
    sizes: dict[str, int | None] = {}
    for subs, dims in zip(in_subs.split(","), shapes):
        if len(subs) != len(dims or []):
            raise ValueError(
                f"Expected {len(subs)} dimensions for an input of einsum '{equation}', got "
                f"{len(dims or [])}"
            )
        for label, d in zip(subs, dims or []):
            known = sizes.get(label)
            if d is not None and known is not None and known != d and 1 not in (known, d):
                raise ValueError(
                    f"Expected dimension {known} at axis of label '{label}' of einsum "
                    f"'{equation}', got {d}"
                )
            if known is None or known == 1:
                sizes[label] = d
    return [(dtype, TensorShape([sizes.get(label) for label in out_subs]))]


for _op in ("MatrixInverse", "Cholesky", "MatrixExponential"):
    op_def_registry.register(_op, _same_square_infer)
op_def_registry.register("MatrixDeterminant", _determinant_infer)
op_def_registry.register("LogMatrixDeterminant", _log_determinant_infer)
op_def_registry.register("Qr", _qr_infer)
op_def_registry.register("Svd", _svd_infer)
op_def_registry.register("SelfAdjointEigV2", _eig_infer)
op_def_registry.register("MatrixSolve", _solve_infer)
op_def_registry.register("MatrixTriangularSolve", _solve_infer)
op_def_registry.register("MatrixSolveLs", _solve_ls_infer)
op_def_registry.register("Lu", _lu_infer)
op_def_registry.register("MatrixBandPart", _band_part_infer)
for _v in ("", "V2", "V3"):
    op_def_registry.register(f"MatrixDiag{_v}", _matrix_diag_infer)
    op_def_registry.register(f"MatrixDiagPart{_v}", _matrix_diag_part_infer)
    op_def_registry.register(f"MatrixSetDiag{_v}", _matrix_set_diag_infer)
op_def_registry.register("Diag", _diag_infer)
op_def_registry.register("DiagPart", _diag_part_infer)
op_def_registry.register("Cross", _cross_infer)
op_def_registry.register("Einsum", _einsum_infer)


# ---- gen ops --------------------------------------------------------------------------------
def _linalg_op(op_type: str, inputs: list[Any], attrs: dict[str, Any], name: str | None) -> Any:
    with name_scope(name, op_type, inputs) as scope:
        tensors = [
            v if isinstance(v, Tensor) else convert_to_tensor(v, name=f"input_{i}")
            for i, v in enumerate(inputs)
        ]
        check_dtype(tensors[0], (*_LINALG_TYPES, dtypes.float16), op_type, "input")
        return make_op(op_type, tensors, {"T": tensors[0].dtype.base_dtype, **attrs}, name=scope)


def matrix_inverse(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """The inverse of each square matrix (of its adjoint with adjoint=True)."""
    return _linalg_op("MatrixInverse", [input], {"adjoint": bool(adjoint)}, name).outputs[0]


def matrix_determinant(input: Any, name: str | None = None) -> Tensor:
    return _linalg_op("MatrixDeterminant", [input], {}, name).outputs[0]


def log_matrix_determinant(input: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(sign, log |det|) of each square matrix."""
    op = _linalg_op("LogMatrixDeterminant", [input], {}, name)
    return op.outputs[0], op.outputs[1]


slogdet = log_matrix_determinant


def cholesky(input: Any, name: str | None = None) -> Tensor:
    """The lower-triangular L with L L^H = input (only input's lower triangle is read)."""
    return _linalg_op("Cholesky", [input], {}, name).outputs[0]


class Qr(NamedTuple):
    """(q, r): TF's namedtuple, which Session.run gives back as one too."""

    q: Tensor
    r: Tensor


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> Qr:
    op = _linalg_op("Qr", [input], {"full_matrices": bool(full_matrices)}, name)
    return Qr(op.outputs[0], op.outputs[1])


def svd(
    tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None
) -> Any:
    """(s, u, v) with tensor = u diag(s) v^H; only s when compute_uv is False."""
    attrs = {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)}
    op = _linalg_op("Svd", [tensor], attrs, name)
    if compute_uv:
        return op.outputs[0], op.outputs[1], op.outputs[2]
    return op.outputs[0]


def self_adjoint_eig(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(eigenvalues ascending, eigenvectors) of each self-adjoint matrix (lower triangle)."""
    op = _linalg_op("SelfAdjointEigV2", [tensor], {"compute_v": True}, name)
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor: Any, name: str | None = None) -> Tensor:
    return _linalg_op("SelfAdjointEigV2", [tensor], {"compute_v": False}, name).outputs[0]


eigh = self_adjoint_eig
eigvalsh = self_adjoint_eigvals


def _rhs_pair(matrix: Any, rhs: Any, op_type: str) -> list[Tensor]:
    m = convert_to_tensor(matrix, name="matrix")
    r = convert_to_tensor(rhs, dtype=m.dtype.base_dtype, name="rhs")
    return [m, r]


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """x with matrix x = rhs (matrix^H x = rhs with adjoint=True)."""
    with name_scope(name, "MatrixSolve", [matrix, rhs]) as scope:
        ins = _rhs_pair(matrix, rhs, "MatrixSolve")
        check_dtype(ins[0], (*_LINALG_TYPES, dtypes.float16), "MatrixSolve", "matrix")
        attrs = {"adjoint": bool(adjoint), "T": ins[0].dtype.base_dtype}
        return make_op("MatrixSolve", ins, attrs, name=scope).outputs[0]


def _gen_triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """The MatrixTriangularSolve op itself (cholesky_solve and gradients use it bare)."""
    with name_scope(name, "MatrixTriangularSolve", [matrix, rhs]) as scope:
        ins = _rhs_pair(matrix, rhs, "MatrixTriangularSolve")
        check_dtype(ins[0], (*_LINALG_TYPES, dtypes.float16), "MatrixTriangularSolve", "matrix")
        attrs = {"lower": bool(lower), "adjoint": bool(adjoint), "T": ins[0].dtype.base_dtype}
        return make_op("MatrixTriangularSolve", ins, attrs, name=scope).outputs[0]


def triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """x with tri(matrix) x = rhs, tri the lower (or upper) triangle of matrix."""
    with name_scope(name, "triangular_solve", [matrix, rhs]):
        return _gen_triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint)


matrix_triangular_solve = triangular_solve


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Tensor:
    """x with (chol chol^H) x = rhs, from the Cholesky factor: two triangular solves."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        y = _gen_triangular_solve(chol, rhs, adjoint=False, lower=True)
        return _gen_triangular_solve(chol, y, adjoint=True, lower=True)


def _regularized_gramian_cholesky(matrix: Tensor, l2_regularizer: Any, first_kind: bool) -> Tensor:
    gramian = math_ops.matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        dims = matrix.shape.as_list()
        small = dims[-1] if first_kind else dims[-2]
        identity = eye(small, batch_shape=dims[:-2], dtype=matrix.dtype.base_dtype)
        l2 = convert_to_tensor(l2_regularizer, dtype=matrix.dtype.base_dtype)
        gramian = gramian + l2 * identity
    return cholesky(gramian)


def matrix_solve_ls(
    matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True, name: str | None = None
) -> Tensor:
    """The least-squares solution of matrix x = rhs (regularised by l2_regularizer)."""
    m = convert_to_tensor(matrix, name="matrix")
    r = convert_to_tensor(rhs, dtype=m.dtype.base_dtype, name="rhs")
    dims = shape_list(m.shape)
    if fast and dims is not None and TensorShape(dims).is_fully_defined():
        with name_scope(name, "matrix_solve_ls", [m, r, l2_regularizer]):
            if dims[-2] >= dims[-1]:  # type: ignore[operator]
                chol = _regularized_gramian_cholesky(m, l2_regularizer, first_kind=True)
                return cholesky_solve(chol, math_ops.matmul(m, r, adjoint_a=True))
            chol = _regularized_gramian_cholesky(m, l2_regularizer, first_kind=False)
            return math_ops.matmul(m, cholesky_solve(chol, r), adjoint_a=True)
    with name_scope(name, "MatrixSolveLs", [m, r, l2_regularizer]) as scope:
        l2 = convert_to_tensor(l2_regularizer, dtype=dtypes.float64, name="l2_regularizer")
        attrs = {"T": m.dtype.base_dtype, "fast": bool(fast)}
        return make_op("MatrixSolveLs", [m, r, l2], attrs, name=scope).outputs[0]


lstsq = matrix_solve_ls


class Lu(NamedTuple):
    """(lu, p): TF's namedtuple, which Session.run gives back as one too."""

    lu: Tensor
    p: Tensor


def lu(input: Any, output_idx_type: Any = dtypes.int32, name: str | None = None) -> Lu:
    """(lu, p): L (unit lower, below the diagonal) and U packed in one matrix, and the row
    permutation p with input[p] = L U."""
    idx = dtypes.as_dtype(output_idx_type).base_dtype
    op = _linalg_op("Lu", [input], {"output_idx_type": idx}, name)
    return Lu(op.outputs[0], op.outputs[1])


def matrix_exponential(input: Any, name: str | None = None) -> Tensor:
    return _linalg_op("MatrixExponential", [input], {}, name).outputs[0]


def expm(input: Any, name: str | None = None) -> Tensor:
    """exp of each square matrix (Pade approximation with scaling and squaring)."""
    with name_scope(name, "matrix_exponential", [input]):
        return matrix_exponential(convert_to_tensor(input, name="input"))


# ---- bands and diagonals ------------------------------------------------------------------
def matrix_band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:
    """Keeps num_lower sub- and num_upper superdiagonals (all with -1), zeros the rest."""
    with name_scope(name, "MatrixBandPart", [input, num_lower, num_upper]) as scope:
        x = convert_to_tensor(input, name="input")
        lower = (
            convert_to_tensor(num_lower, dtype=dtypes.int64, name="num_lower")
            if isinstance(num_lower, Tensor) and num_lower.dtype.base_dtype == dtypes.int64
            else convert_to_tensor(num_lower, dtype=dtypes.int32, name="num_lower")
        )
        upper = convert_to_tensor(num_upper, dtype=lower.dtype.base_dtype, name="num_upper")
        attrs = {"T": x.dtype.base_dtype, "Tindex": lower.dtype.base_dtype}
        return make_op("MatrixBandPart", [x, lower, upper], attrs, name=scope).outputs[0]


band_part = matrix_band_part


def _diag_v3_args(k: Any, num_rows: Any, num_cols: Any, padding: Any, dtype: Any) -> list[Tensor]:
    return [
        convert_to_tensor(k, dtype=dtypes.int32, name="k"),
        convert_to_tensor(num_rows, dtype=dtypes.int32, name="num_rows"),
        convert_to_tensor(num_cols, dtype=dtypes.int32, name="num_cols"),
        convert_to_tensor(padding, dtype=dtype, name="padding_value"),
    ]


# TF 1.15 builds the V1 op types (MatrixDiag, MatrixDiagPart, MatrixSetDiag: its forward
# compatibility horizon is before V2's); with a band k, a size or a padding, which its V1 ops
# cannot express (1.15 ignores them), the V3 op types of later releases compute them.
def _is_default(value: Any, default: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and value == default


def matrix_diag(
    diagonal: Any,
    name: str = "diag",
    k: Any = 0,
    num_rows: Any = -1,
    num_cols: Any = -1,
    padding_value: Any = 0,
    *,  # TF 2.x's align, beyond TF 1.15's signature
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """Batched matrices with the given diagonal(s) (k: one index or a [low, high] band)."""
    v1 = all(
        _is_default(v, d) for v, d in ((k, 0), (num_rows, -1), (num_cols, -1), (padding_value, 0))
    )
    with name_scope(name, "MatrixDiag" if v1 else "MatrixDiagV3", [diagonal]) as scope:
        d = convert_to_tensor(diagonal, name="diagonal")
        if v1:
            return make_op("MatrixDiag", [d], {"T": d.dtype.base_dtype}, name=scope).outputs[0]
        extra = _diag_v3_args(k, num_rows, num_cols, padding_value, d.dtype.base_dtype)
        attrs = {"T": d.dtype.base_dtype, "align": align}
        return make_op("MatrixDiagV3", [d, *extra], attrs, name=scope).outputs[0]


def matrix_diag_part(
    input: Any,
    name: str = "diag_part",
    k: Any = 0,
    padding_value: Any = 0,
    *,  # TF 2.x's align, beyond TF 1.15's signature
    align: str = "RIGHT_LEFT",
) -> Tensor:
    v1 = _is_default(k, 0) and _is_default(padding_value, 0)
    with name_scope(name, "MatrixDiagPart" if v1 else "MatrixDiagPartV3", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        attrs: dict[str, Any] = {"T": x.dtype.base_dtype}
        if v1:
            return make_op("MatrixDiagPart", [x], attrs, name=scope).outputs[0]
        k_t = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        pad = convert_to_tensor(padding_value, dtype=x.dtype.base_dtype, name="padding_value")
        attrs["align"] = align
        return make_op("MatrixDiagPartV3", [x, k_t, pad], attrs, name=scope).outputs[0]


def matrix_set_diag(
    input: Any,
    diagonal: Any,
    name: str = "set_diag",
    k: Any = 0,
    *,  # TF 2.x's align, beyond TF 1.15's signature
    align: str = "RIGHT_LEFT",
) -> Tensor:
    v1 = _is_default(k, 0)
    with name_scope(name, "MatrixSetDiag" if v1 else "MatrixSetDiagV3", [input, diagonal]) as scope:
        x = convert_to_tensor(input, name="input")
        d = convert_to_tensor(diagonal, dtype=x.dtype.base_dtype, name="diagonal")
        attrs: dict[str, Any] = {"T": x.dtype.base_dtype}
        if v1:
            return make_op("MatrixSetDiag", [x, d], attrs, name=scope).outputs[0]
        k_t = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        attrs["align"] = align
        return make_op("MatrixSetDiagV3", [x, d, k_t], attrs, name=scope).outputs[0]


def tensor_diag(diagonal: Any, name: str | None = None) -> Tensor:
    """A tensor of rank 2k with `diagonal` (rank k) on its diagonal."""
    with name_scope(name, "Diag", [diagonal]) as scope:
        d = convert_to_tensor(diagonal, name="diagonal")
        return make_op("Diag", [d], {"T": d.dtype.base_dtype}, name=scope).outputs[0]


def tensor_diag_part(input: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "DiagPart", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return make_op("DiagPart", [x], {"T": x.dtype.base_dtype}, name=scope).outputs[0]


# tf.diag / tf.diag_part are the tensor forms; tf.linalg.diag is matrix_diag.
diag = tensor_diag
diag_part = tensor_diag_part


def eye(
    num_rows: Any,
    num_columns: Any = None,
    batch_shape: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """Identity matrices (batched when batch_shape is given)."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size: Any = math_ops.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, (int, np.integer)) or not isinstance(
                num_columns, (int, np.integer)
            ):
                raise TypeError("num_rows and num_columns must be positive integer values.")
            is_square = num_rows == num_columns
            diag_size = int(min(num_rows, num_columns))
        if isinstance(batch, Tensor) or isinstance(diag_size, Tensor):
            batch_t = convert_to_tensor(batch, name="shape", dtype=dtypes.int32)
            # As TF: the lists holding tensors become the concat's own Pack'ed values.
            diag_shape: Any = array_ops.concat([batch_t, [diag_size]], 0)
            if not is_square:
                shape: Any = array_ops.concat([batch_t, [num_rows, num_columns]], 0)
        else:
            if not isinstance(batch, (list, tuple)):
                raise TypeError(f"batch_shape must be a list, tuple or Tensor, got {batch!r}")
            diag_shape = [*batch, diag_size]
            if not is_square:
                shape = [*batch, num_rows, num_columns]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(array_ops.zeros(shape, dtype=dtype), diag_ones)


def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of each matrix's diagonal."""
    with name_scope(name, "Trace", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        return math_ops.reduce_sum(matrix_diag_part(t), [-1], name=scope)


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Swaps the last two dims (and conjugates, with conjugate=True)."""
    with name_scope(name, "matrix_transpose", [a]):
        t = convert_to_tensor(a, name="a")
        rank = t.shape.ndims
        if rank is not None:
            if rank < 2:
                raise ValueError(
                    f"Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {t.shape}"
                )
            perm: Any = [*range(rank - 2), rank - 1, rank - 2]
        else:
            dyn = array_ops.rank(t)
            perm = array_ops.concat(
                [math_ops.range(0, dyn - 2, 1), array_ops.stack([dyn - 1, dyn - 2])], 0
            )
        if conjugate and t.dtype.base_dtype.is_complex:
            t = math_ops.conj(t)
        return array_ops.transpose(t, perm=perm)


def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "adjoint", [matrix]):
        return matrix_transpose(convert_to_tensor(matrix, name="matrix"), conjugate=True)


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """a @ b for matrices a and vectors b (batched)."""
    with name_scope(name, "MatVec", [a, b]):
        output = math_ops.matmul(
            a, array_ops.expand_dims(b, axis=-1), transpose_a=transpose_a, adjoint_a=adjoint_a
        )
        return array_ops.squeeze(output, axis=-1)


def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """log(det(matrix)) of Hermitian positive definite matrices, via Cholesky."""
    with name_scope(name, "logdet", [matrix]):
        chol = cholesky(matrix)
        diag = matrix_diag_part(chol)
        return 2.0 * math_ops.reduce_sum(math_ops.log(diag), axis=[-1])


def cross(a: Any, b: Any, name: str | None = None) -> Tensor:
    """Pairwise cross products of 3-vectors (along the last dim)."""
    with name_scope(name, "Cross", [a, b]) as scope:
        x = convert_to_tensor(a, name="a")
        y = convert_to_tensor(b, dtype=x.dtype.base_dtype, name="b")
        return make_op("Cross", [x, y], {"T": x.dtype.base_dtype}, name=scope).outputs[0]


_VECTOR_NORMS = ("euclidean", 1, 2, np.inf)
_MATRIX_NORMS = ("euclidean", "fro", 1, 2, np.inf)


def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: Any = None,
    name: str | None = None,
    keep_dims: Any = None,
) -> Tensor:
    """Vector norms (axis None or an int) and matrix norms (axis a pair) as TF computes them."""
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not all(isinstance(a, (int, np.integer)) for a in axis) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers")
        if ord not in _MATRIX_NORMS:
            raise ValueError(
                f"'ord' must be a supported matrix norm in {list(_MATRIX_NORMS)}, got {ord}"
            )
    else:
        if not (isinstance(axis, (int, np.integer)) or axis is None):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers")
        if ord not in _VECTOR_NORMS and (isinstance(ord, str) or not np.isreal(ord) or ord <= 0):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with name_scope(name, "norm", [tensor]):
        t = convert_to_tensor(tensor)
        if ord in ("fro", "euclidean", 2, 2.0):
            if is_matrix and ord in (2, 2.0):
                result = _matrix_two_norm(t, axis)
            else:
                squares = t * math_ops.conj(t)
                result = math_ops.sqrt(
                    math_ops.reduce_sum(
                        squares, None if axis is None else list(axis), keepdims=True
                    )
                )
        else:
            result = math_ops.abs(t)
            if ord == 1:
                result = math_ops.reduce_sum(
                    result, None if axis is None else axis[0], keepdims=True
                )
                if is_matrix:
                    result = math_ops.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix:
                    result = math_ops.reduce_sum(result, axis[1], keepdims=True)
                result = math_ops.reduce_max(
                    result, None if axis is None else axis[0], keepdims=True
                )
            else:
                summed = math_ops.reduce_sum(
                    math_ops.pow(result, math_ops.cast(ord, result.dtype)),
                    None if axis is None else list(axis),
                    keepdims=True,
                )
                result = math_ops.pow(summed, math_ops.cast(1.0 / ord, result.dtype))
        if not keep:
            result = array_ops.squeeze(result, None if axis is None else list(axis))
        return result


def _matrix_two_norm(t: Tensor, axis: tuple[int, int]) -> Tensor:
    """The largest singular value over the two axes (they are moved last for the SVD)."""
    rank = t.shape.ndims
    if rank is None:
        raise ValueError("The matrix 2-norm needs a tensor of known rank")
    positive = [a % rank for a in axis]
    perm_before = [a for a in range(rank) if a not in positive] + positive
    perm_after = [int(i) for i in np.argsort(perm_before)]
    permed = array_ops.transpose(t, perm=perm_before)
    s = svd(permed, compute_uv=False)
    largest = math_ops.reduce_max(math_ops.abs(s), axis=-1, keepdims=True)
    return array_ops.transpose(array_ops.expand_dims(largest, -1), perm=perm_after)


def normalize(
    tensor: Any, ord: Any = "euclidean", axis: Any = None, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """(tensor / norm, norm)."""
    with name_scope(name, "normalize", [tensor]):
        t = convert_to_tensor(tensor)
        n = norm(t, ord, axis, keepdims=True)
        return math_ops.truediv(t, n), n


def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse from the SVD (singular values under rcond * max
    dropped)."""
    with name_scope(name or "pinv"):
        x = convert_to_tensor(a, name="a")
        dims = shape_list(x.shape)
        if rcond is None:
            if dims is None or dims[-1] is None or dims[-2] is None:
                size = math_ops.cast(
                    math_ops.maximum(array_ops.shape(x)[-2], array_ops.shape(x)[-1]), x.dtype
                )
            else:
                size = constant_op.constant(float(max(dims[-2], dims[-1])), dtype=x.dtype)
            rcond = size * constant_op.constant(
                float(np.finfo(x.dtype.base_dtype.as_numpy_dtype).eps), dtype=x.dtype
            )
        rcond_t = convert_to_tensor(rcond, dtype=x.dtype.base_dtype, name="rcond")
        s, uu, v = svd(x, full_matrices=False, compute_uv=True)
        cutoff = rcond_t * math_ops.reduce_max(s, axis=-1)
        keep = math_ops.greater(s, array_ops.expand_dims(cutoff, -1))
        safe_s = math_ops.select(keep, s, array_ops.ones_like(s))
        inv_s = math_ops.select(keep, math_ops.reciprocal(safe_s), array_ops.zeros_like(s))
        return math_ops.matmul(v * array_ops.expand_dims(inv_s, -2), uu, adjoint_b=True)


def matrix_rank(
    a: Any, tol: Any = None, validate_args: bool = False, name: str | None = None
) -> Tensor:
    """The number of singular values above tol (default: eps * max(m, n) * max(s))."""
    with name_scope(name or "matrix_rank"):
        x = convert_to_tensor(a, name="a")
        s = svd(x, compute_uv=False)
        if tol is None:
            dims = array_ops.shape(x)
            size = math_ops.cast(math_ops.maximum(dims[-2], dims[-1]), x.dtype.base_dtype)
            eps = constant_op.constant(
                float(np.finfo(x.dtype.base_dtype.as_numpy_dtype).eps), dtype=x.dtype
            )
            tol = eps * size * math_ops.reduce_max(s, axis=-1, keepdims=True)
        above = math_ops.cast(math_ops.greater(s, tol), dtypes.int32)
        return math_ops.reduce_sum(above, axis=-1)


# ---- einsum and tensordot ---------------------------------------------------------------------
def expand_ellipsis(equation: str, ranks: Sequence[int]) -> str:
    """The equation with '...' replaced by explicit labels (unused letters) and the output
    written out when implicit ('ij,jk' -> 'ij,jk->ik', labels in alphabetical order)."""
    equation = equation.replace(" ", "")
    if "->" in equation:
        lhs, rhs = equation.split("->")
        explicit_out = True
    else:
        lhs, rhs, explicit_out = equation, "", False
    inputs = lhs.split(",")
    if len(inputs) != len(ranks):
        raise ValueError(
            f'Got {len(ranks)} arguments for equation "{equation}", expecting {len(inputs)}'
        )
    used = set(equation) - set(".,->")
    spare = [c for c in string.ascii_letters if c not in used]
    ellipsis_rank = 0
    for subs, rank in zip(inputs, ranks):
        if "..." in subs:
            ellipsis_rank = max(ellipsis_rank, rank - (len(subs) - 3))
    if ellipsis_rank > len(spare):
        raise ValueError(f'Too many dimensions under the ellipsis of "{equation}"')
    batch_labels = "".join(spare[:ellipsis_rank])
    expanded = []
    for subs, rank in zip(inputs, ranks):
        if "..." in subs:
            own = rank - (len(subs) - 3)
            if own < 0:
                raise ValueError(f'Input of rank {rank} does not fit "{subs}" of "{equation}"')
            subs = subs.replace("...", batch_labels[ellipsis_rank - own :])
        elif len(subs) != rank:
            raise ValueError(f'Input of rank {rank} does not fit "{subs}" of einsum "{equation}"')
        expanded.append(subs)
    if explicit_out:
        out = rhs.replace("...", batch_labels)
    else:
        counts: dict[str, int] = {}
        for subs in inputs:
            for c in subs.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out = batch_labels + "".join(sorted(c for c, n in counts.items() if n == 1))
    return ",".join(expanded) + "->" + out


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Einstein summation over the inputs, as numpy's einsum (ellipsis and broadcasting)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"invalid keyword arguments for einsum: {', '.join(sorted(kwargs))}")
    if not inputs:
        raise ValueError("einsum needs at least one input")
    with name_scope(name, "einsum", list(inputs)):
        tensors = [convert_to_tensor(x, name="inputs") for x in inputs]
        base = tensors[0].dtype.base_dtype
        for t in tensors[1:]:
            if t.dtype.base_dtype != base:
                raise TypeError(
                    f"einsum inputs must share a dtype, got {base.name} and {t.dtype.name}"
                )
        eq = equation.replace(" ", "")
        ranks = [t.shape.ndims for t in tensors]
        if all(r is not None for r in ranks):
            eq = expand_ellipsis(eq, [r for r in ranks if r is not None])
        elif "->" not in eq:
            raise ValueError("einsum of inputs of unknown rank needs an explicit output ('->')")
        attrs = {"equation": eq, "N": len(tensors), "T": base}
        return make_op("Einsum", tensors, attrs, name="Einsum").outputs[0]


def _tensordot_axes(a: Tensor, axes: Any) -> tuple[Any, Any]:
    """TF 1.15's pairs of contraction axes: lists where `axes` is a Python value, int32
    tensors where it is a tensor (or an int with `a` of unknown rank)."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError("'axes' must be at least 0.")
        rank = a.shape.ndims
        if rank is not None:
            if axes > rank:
                raise ValueError(
                    f"'axes' must not be larger than the number of dimensions of tensor {a}."
                )
            return list(range(rank - axes, rank)), list(range(axes))
        rank_t = array_ops.rank(a)
        return (
            math_ops.range_cast_to(rank_t - axes, rank_t, dtype=dtypes.int32),
            math_ops.range_cast_to(axes, dtype=dtypes.int32),
        )
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(
                f"Different number of contraction axes 'a' and 'b', {len(a_axes)} != {len(b_axes)}."
            )
        return a_axes, b_axes
    axes_t = convert_to_tensor(axes, name="axes", dtype=dtypes.int32)
    return axes_t[0], axes_t[1]


def _tensordot_reshape(t: Tensor, axes: Any, flipped: bool) -> tuple[Tensor, Any, Any]:
    """TF 1.15's: t transposed so `axes` come last (first when flipped) and flattened to 2-D
    (a Transpose and a Reshape even where they change nothing); also the free dims (a list
    of ints, or an int32 tensor where t's shape is not fully known) and their static form."""
    if t.shape.is_fully_defined() and isinstance(axes, (list, tuple)):
        dims: list[Any] = t.shape.as_list()
        axes = [i if i >= 0 else i + len(dims) for i in axes]
        free = [i for i in range(len(dims)) if i not in axes]
        free_list: list[Any] = [dims[i] for i in free]
        prod_free = int(np.prod([int(dims[i]) for i in free]))
        prod_axes = int(np.prod([int(dims[i]) for i in axes]))
        perm: list[int] = list(axes) + free if flipped else free + list(axes)
        shape_2d = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        return array_ops.reshape(array_ops.transpose(t, perm), shape_2d), free_list, free_list
    free_static: Any
    if t.shape.ndims is not None and isinstance(axes, (list, tuple)):
        known: list[Any] = t.shape.as_list()
        axes = [i if i >= 0 else i + len(known) for i in axes]
        free_axes = [i for i in range(len(known)) if i not in axes]
        free_static = [known[i] for i in free_axes]
        axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        free_t = convert_to_tensor(free_axes, dtype=dtypes.int32, name="free")
        shape_t = array_ops.shape(t)
    else:
        free_static = None
        shape_t = array_ops.shape(t)
        rank_t = array_ops.rank(t)
        axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        axes_t = array_ops.where(axes_t >= 0, axes_t, axes_t + rank_t)
        internal_deprecations.called_internally(internal_deprecations.SETDIFF1D)
        free_t, _ = counting_ops.setdiff1d(math_ops.range(rank_t), axes_t)
    free_dims = array_ops.gather(shape_t, free_t)
    axes_dims = array_ops.gather(shape_t, axes_t)
    prod_free_t = math_ops.reduce_prod(free_dims)
    prod_axes_t = math_ops.reduce_prod(axes_dims)
    if flipped:
        perm_t = array_ops.concat([axes_t, free_t], 0)
        new_shape = array_ops.stack([prod_axes_t, prod_free_t])
    else:
        perm_t = array_ops.concat([free_t, axes_t], 0)
        new_shape = array_ops.stack([prod_free_t, prod_axes_t])
    return array_ops.reshape(array_ops.transpose(t, perm_t), new_shape), free_dims, free_static


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sums the products of a's and b's entries over the paired axes: TF 1.15's graph (both
    operands transposed and flattened to 2-D, one MatMul, a Reshape back)."""
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        x = convert_to_tensor(a, name="a")
        y = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(x, axes)
        a2, a_free, a_static = _tensordot_reshape(x, a_axes, False)
        b2, b_free, b_static = _tensordot_reshape(y, b_axes, True)
        product = math_ops.matmul(a2, b2)
        if isinstance(a_free, list) and isinstance(b_free, list):
            return array_ops.reshape(product, a_free + b_free, name=scope)
        a_free_t = convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free_t = convert_to_tensor(b_free, dtype=dtypes.int32)
        out = array_ops.reshape(product, array_ops.concat([a_free_t, b_free_t], 0), name=scope)
        if a_static is not None and b_static is not None:
            out.set_shape(a_static + b_static)
        return out


__all__ = [
    "cholesky",
    "cholesky_solve",
    "cross",
    "eye",
    "matrix_band_part",
    "matrix_determinant",
    "matrix_diag",
    "matrix_diag_part",
    "matrix_inverse",
    "matrix_set_diag",
    "matrix_solve",
    "matrix_solve_ls",
    "matrix_transpose",
    "matrix_triangular_solve",
    "norm",
    "qr",
    "self_adjoint_eig",
    "self_adjoint_eigvals",
    "svd",
    "tensordot",
    "einsum",
    "trace",
    "diag",
    "diag_part",
]
