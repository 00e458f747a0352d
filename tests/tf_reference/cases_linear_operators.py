"""Cases of tf.linalg's matrix functions (sqrtm / tf.matrix_square_root, logm), tridiagonal
matmul and solve, and the LinearOperator classes, run on TensorFlow 1.15 by
record_linear_operators.py and on tfcluster by tests/unit/test_tf_reference_linear_operators.py."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_linear_operators by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

_B = values((2, 3, 3), seed=60)
SPD = np.einsum("bij,bkj->bik", _B, _B) + 2.0 * np.eye(3)
GENERAL = _B + 3.0 * np.eye(3)
ROTATION = np.array([[0.0, -1.0], [1.0, 0.0]])
CPLX = (GENERAL + 1j * values((2, 3, 3), seed=61)).astype(np.complex128)
DIAGS = np.stack(
    [values((2, 5), seed=62), values((2, 5), seed=63) + 4.0, values((2, 5), seed=64)], axis=-2
)  # [2, 3, 5]: super, main, sub
RHS = values((2, 5, 2), seed=65)


# tfcluster computes matrix functions in double precision and rounds once: its float32 and
# complex64 results are closer to the exact ones than TF's, hence 2e-5 there.
@add("sqrtm", {"a": SPD, "g": GENERAL}, grad=("y", ("a",)), rtol=2e-5, atol=1e-6)
def _sqrtm(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.linalg.sqrtm(t["a"]),
        "top": tf.matrix_square_root(t["g"]),
        "f32": tf.linalg.sqrtm(tf.cast(t["a"], tf.float32)),
        "rotation": tf.linalg.sqrtm(tf.constant(ROTATION)),
    }


@add("sqrtm_general_gradient", {"a": GENERAL}, grad=("y", ("a",)), rtol=1e-6, atol=1e-8)
def _sqrtm_general(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.matrix_square_root(t["a"])}


@add("sqrtm_complex", {"a": CPLX}, rtol=2e-5, atol=1e-6)
def _sqrtm_complex(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.sqrtm(t["a"]), "c64": tf.linalg.sqrtm(tf.cast(t["a"], tf.complex64))}


@add("sqrtm_without_a_real_root_is_nan", {"a": np.diag([-4.0, 9.0])})
def _sqrtm_negative(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.sqrtm(t["a"])}


@add("sqrtm_not_square_fails_at_build", {"a": np.ones((2, 3))})
def _sqrtm_not_square(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.sqrtm(t["a"])}


@add("sqrtm_of_ints_fails_at_build", {"a": np.eye(2, dtype=np.int32)})
def _sqrtm_ints(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.sqrtm(t["a"])}


@add("logm", {"a": CPLX}, rtol=2e-5, atol=1e-6)
def _logm(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.linalg.logm(t["a"]),
        "c64": tf.linalg.logm(tf.cast(t["a"], tf.complex64)),
        "negative": tf.linalg.logm(tf.constant(np.diag([-4.0, 9.0]).astype(np.complex128))),
    }


@add("logm_of_floats_fails_at_build", {"a": SPD})
def _logm_real(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.logm(t["a"])}


@add("logm_has_no_gradient", {"a": CPLX}, grad=("y", ("a",)))
def _logm_grad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.real(tf.linalg.logm(t["a"]))}


@add("tridiagonal_matmul", {"d": DIAGS, "b": RHS}, grad=("y", ("d", "b")))
def _tri_matmul(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    d = t["d"]
    dense = tf.linalg.diag(d[..., 1, :]) + tf.linalg.set_diag(
        tf.zeros([2, 5, 5], tf.float64), tf.zeros([2, 5], tf.float64)
    )
    return {
        "y": tf.linalg.tridiagonal_matmul(d, t["b"]),
        "sequence": tf.linalg.tridiagonal_matmul((d[:, 0], d[:, 1], d[:, 2]), t["b"], "sequence"),
        "matrix": tf.linalg.tridiagonal_matmul(dense, t["b"], diagonals_format="matrix"),
        "c64": tf.linalg.tridiagonal_matmul(
            tf.cast(d, tf.complex64), tf.cast(t["b"], tf.complex64)
        ),
    }


@add("tridiagonal_solve", {"d": DIAGS, "b": RHS}, grad=("y", ("d", "b")))
def _tri_solve(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    d, b = t["d"], t["b"]
    dense = tf.linalg.tridiagonal_matmul(d, tf.eye(5, batch_shape=[2], dtype=tf.float64))
    return {
        "y": tf.linalg.tridiagonal_solve(d, b),
        "vector": tf.linalg.tridiagonal_solve(d, b[..., 0]),
        "no_pivoting": tf.linalg.tridiagonal_solve(d, b, partial_pivoting=False),
        "transposed": tf.linalg.tridiagonal_solve(d, tf.linalg.adjoint(b), transpose_rhs=True),
        "sequence": tf.linalg.tridiagonal_solve(
            (d[:, 0, :-1], d[:, 1], d[:, 2, 1:]), b, diagonals_format="sequence"
        ),
        "matrix": tf.linalg.tridiagonal_solve(dense, b, diagonals_format="matrix"),
        "f32": tf.linalg.tridiagonal_solve(tf.cast(d, tf.float32), tf.cast(b, tf.float32)),
    }


@add("tridiagonal_solve_needs_a_pivot", {})
def _tri_pivot(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    d = tf.constant([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    return {"y": tf.linalg.tridiagonal_solve(d, tf.ones([3, 1]))}


@add("tridiagonal_solve_singular_fails_at_run", {"d": np.zeros((3, 3)), "b": np.ones((3, 2))})
def _tri_singular(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.tridiagonal_solve(t["d"], t["b"])}


@add(
    "tridiagonal_solve_without_pivoting_fails_at_run",
    {"d": np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]), "b": np.ones((3, 1))},
)
def _tri_no_pivot(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.tridiagonal_solve(t["d"], t["b"], partial_pivoting=False)}


@add("tridiagonal_solve_wrong_rhs_fails_at_build", {"d": DIAGS[0], "b": RHS[0, :4]})
def _tri_wrong_rhs(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.tridiagonal_solve(t["d"], t["b"])}


@add("tridiagonal_solve_two_diagonals_fails_at_build", {"d": DIAGS[0, :2], "b": RHS[0]})
def _tri_two(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.tridiagonal_solve(t["d"], t["b"])}


@add(
    "tridiagonal_of_ints_fails_at_build",
    {"d": np.ones((3, 4), np.int32), "b": np.ones((4, 1), np.int32)},
)
def _tri_ints(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.tridiagonal_solve(t["d"], t["b"])}


# ---- LinearOperators -------------------------------------------------------------------------
# Block-diagonal, Kronecker, Householder, Toeplitz and circulant operators compute some results
# along other op paths than TF's (Toeplitz densely instead of by FFT, for instance): same values,
# other tensor names, so those cases compare values only (names=False).
X = values((2, 3, 2), seed=70)
V = values((2, 3), seed=71)


def _probe(tf: Any, op: Any, x: Any, square: bool = True) -> dict[str, Any]:
    """What a program asks of an operator: products, dense form, diagonal, and for square ones
    determinants, solves, trace, adjoint and inverse (each named as TF names it)."""
    out = {
        "matmul": op.matmul(x),
        "matmul_adjoint_arg": op.matmul(tf.linalg.adjoint(x), adjoint_arg=True),
        "matvec": op.matvec(x[..., 0]),
        "to_dense": op.to_dense(),
        "diag_part": op.diag_part(),
        "shape_tensor": op.shape_tensor(),
    }
    if square:
        out.update(
            {
                "matmul_adjoint": op.matmul(x, adjoint=True),
                "det": op.determinant(),
                "log_abs_det": op.log_abs_determinant(),
                "solve": op.solve(x),
                "solve_adjoint": op.solve(x, adjoint=True),
                "solvevec": op.solvevec(x[..., 0]),
                "trace": op.trace(),
                "adjoint": op.adjoint().to_dense(),
                "inverse": op.inverse().to_dense(),
                "add_to_tensor": op.add_to_tensor(tf.ones_like(op.to_dense())),
            }
        )
    return out


@add("full_matrix", {"m": GENERAL, "x": X}, grad=("matmul", ("m", "x")))
def _full(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorFullMatrix(t["m"])
    spd = tf.linalg.LinearOperatorFullMatrix(
        tf.constant(SPD), is_self_adjoint=True, is_positive_definite=True
    )
    return {
        **_probe(tf, op, t["x"]),
        "spd_solve": spd.solve(t["x"]),
        "spd_log_abs_det": spd.log_abs_determinant(),
        "spd_cholesky": spd.cholesky().to_dense(),
        "is_square": tf.constant(op.is_square),
    }


@add("full_matrix_not_square", {"m": values((2, 3, 4), seed=72), "x": values((2, 4, 2), seed=73)})
def _full_wide(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorFullMatrix(t["m"])
    return {
        **_probe(tf, op, t["x"], square=False),
        "matmul_adjoint": op.matmul(tf.ones([2, 3, 1], tf.float64), adjoint=True),
    }


@add("full_matrix_wrong_dtype_fails_at_build", {"m": GENERAL, "x": X.astype(np.float32)})
def _full_dtype(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.LinearOperatorFullMatrix(t["m"]).matmul(t["x"])}


@add("full_matrix_wrong_shape_fails_at_build", {"m": GENERAL, "x": values((2, 4, 2), seed=74)})
def _full_shape(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.LinearOperatorFullMatrix(t["m"]).matmul(t["x"])}


@add("diag", {"d": V + 2.0, "x": X}, grad=("matmul", ("d", "x")))
def _diag(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorDiag(t["d"], is_positive_definite=True)
    return {**_probe(tf, op, t["x"]), "cholesky": op.cholesky().to_dense()}


@add("diag_complex", {"d": (V + 2.0 + 1j * V).astype(np.complex128)})
def _diag_complex(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorDiag(t["d"])
    x = tf.complex(tf.constant(X), tf.constant(X[::-1]))
    return _probe(tf, op, x)


@add("identity", {"x": X})
def _identity(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorIdentity(3, dtype=tf.float64)
    batch = tf.linalg.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64)
    return {
        **_probe(tf, op, t["x"]),
        "batch_matmul": batch.matmul(t["x"][0]),
        "batch_dense": batch.to_dense(),
        "batch_det": batch.determinant(),
        "cholesky": op.cholesky().to_dense(),
    }


@add("identity_negative_rows_fails_at_build", {})
def _identity_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.LinearOperatorIdentity(-1).to_dense()}


@add("scaled_identity", {"s": np.array([2.0, -0.5]), "x": X}, grad=("matmul", ("s", "x")))
def _scaled(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorScaledIdentity(3, t["s"])
    return _probe(tf, op, t["x"])


@add("lower_triangular", {"m": GENERAL, "x": X}, grad=("solve", ("m", "x")))
def _tril(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorLowerTriangular(t["m"])
    return _probe(tf, op, t["x"])


@add("composition", {"m": GENERAL, "d": V + 2.0, "x": X}, grad=("matmul", ("m", "d")))
def _composition(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    full = tf.linalg.LinearOperatorFullMatrix(t["m"])
    diag = tf.linalg.LinearOperatorDiag(t["d"])
    op = tf.linalg.LinearOperatorComposition([full, diag])
    return {
        **_probe(tf, op, t["x"]),
        "operator_matmul": full.matmul(diag).to_dense(),
        "operator_solve": full.solve(diag).to_dense(),
        "diag_diag": diag.matmul(diag).to_dense(),
        "named": tf.linalg.LinearOperatorComposition([diag, diag], name="twice").matmul(t["x"]),
    }


@add("adjoint_and_inversion", {"m": GENERAL, "x": X})
def _adjoint(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    full = tf.linalg.LinearOperatorFullMatrix(t["m"])
    adjoint = tf.linalg.LinearOperatorAdjoint(full)
    inverse = tf.linalg.LinearOperatorInversion(full)
    return {
        **{f"adjoint_{k}": v for k, v in _probe(tf, adjoint, t["x"]).items()},
        **{f"inverse_{k}": v for k, v in _probe(tf, inverse, t["x"]).items()},
    }


@add(
    "block_diag", {"a": GENERAL, "d": V[:, :2] + 2.0, "x": values((2, 5, 2), seed=75)}, names=False
)
def _block(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorBlockDiag(
        [tf.linalg.LinearOperatorFullMatrix(t["a"]), tf.linalg.LinearOperatorDiag(t["d"])]
    )
    return _probe(tf, op, t["x"])


@add(
    "kronecker",
    {"a": GENERAL[0, :2, :2], "b": GENERAL[1], "x": values((6, 2), seed=76)},
    names=False,
)
def _kron(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorKronecker(
        [tf.linalg.LinearOperatorFullMatrix(t["a"]), tf.linalg.LinearOperatorFullMatrix(t["b"])]
    )
    return _probe(tf, op, t["x"])


@add("low_rank_update", {"u": values((2, 3, 1), seed=77), "d": V + 2.0, "x": X}, rtol=1e-6)
def _low_rank(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    base = tf.linalg.LinearOperatorDiag(t["d"], is_positive_definite=True)
    op = tf.linalg.LinearOperatorLowRankUpdate(base, t["u"])
    general = tf.linalg.LinearOperatorLowRankUpdate(
        base,
        t["u"],
        diag_update=tf.constant([[0.5], [2.0]], tf.float64),
        v=tf.constant(values((2, 3, 1), seed=78)),
    )
    return {
        **_probe(tf, op, t["x"]),
        **{f"general_{k}": v for k, v in _probe(tf, general, t["x"]).items()},
    }


@add("householder", {"v": V, "x": X}, names=False)
def _householder(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return _probe(tf, tf.linalg.LinearOperatorHouseholder(t["v"]), t["x"])


@add("toeplitz", {"c": V + 2.0, "r": values((2, 3), seed=79), "x": X}, rtol=1e-6, names=False)
def _toeplitz(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return _probe(tf, tf.linalg.LinearOperatorToeplitz(t["c"], t["r"]), t["x"])


@add("zeros", {"x": X})
def _zeros(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorZeros(3, dtype=tf.float64)
    wide = tf.linalg.LinearOperatorZeros(
        3, 4, batch_shape=[2], is_square=False, is_self_adjoint=False, dtype=tf.float64
    )
    return {
        "matmul": op.matmul(t["x"]),
        "to_dense": op.to_dense(),
        "det": op.determinant(),
        "trace": op.trace(),
        "diag_part": op.diag_part(),
        "wide_dense": wide.to_dense(),
        "wide_matmul": wide.matmul(tf.ones([2, 4, 1], tf.float64)),
        "shape": wide.shape_tensor(),
    }


SPECTRUM = (values((2, 4), seed=80) + 3.0).astype(np.complex128)


@add("circulant", {"s": SPECTRUM}, rtol=1e-6, atol=1e-9, names=False)
def _circulant(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorCirculant(t["s"], input_output_dtype=tf.complex128)
    x = tf.complex(tf.constant(values((2, 4, 2), seed=81)), tf.constant(values((2, 4, 2), seed=82)))
    return {**_probe(tf, op, x), "kernel": op.convolution_kernel()}


@add(
    "circulant_2d_3d",
    {"s2": SPECTRUM.reshape(2, 2, 2), "s3": SPECTRUM.reshape(1, 2, 2, 2)},
    rtol=1e-6,
    atol=1e-9,
    names=False,
)
def _circulant_nd(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x2 = tf.complex(
        tf.constant(values((2, 4, 2), seed=83)), tf.constant(values((2, 4, 2), seed=84))
    )
    x3 = tf.complex(
        tf.constant(values((1, 8, 2), seed=85)), tf.constant(values((1, 8, 2), seed=86))
    )
    two = tf.linalg.LinearOperatorCirculant2D(t["s2"], input_output_dtype=tf.complex128)
    three = tf.linalg.LinearOperatorCirculant3D(t["s3"], input_output_dtype=tf.complex128)
    return {
        **{f"two_{k}": v for k, v in _probe(tf, two, x2).items()},
        **{f"three_{k}": v for k, v in _probe(tf, three, x3).items()},
    }


@add("tf_linalg_functions_take_operators", {"d": V + 2.0, "x": X})
def _dispatch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorDiag(t["d"], is_positive_definite=True)
    return {
        "matmul": tf.linalg.matmul(op, t["x"]),
        "matmul_left": tf.linalg.matmul(tf.linalg.adjoint(t["x"]), op),
        "det": tf.linalg.det(op),
        "logdet": tf.linalg.logdet(op),
        "trace": tf.linalg.trace(op),
        "diag_part": tf.linalg.diag_part(op),
        "solve": tf.linalg.solve(op, t["x"]),
        "inv": tf.linalg.inv(op).to_dense(),
        "adjoint": tf.linalg.adjoint(op).to_dense(),
        "cholesky": tf.linalg.cholesky(op).to_dense(),
    }


# TF's op wrappers consume an op name before dispatching an operator (a later det of a tensor
# is MatrixDeterminant_1 there, MatrixDeterminant here): values only.
@add("tf_linalg_functions_still_take_tensors", {"m": GENERAL, "x": X}, names=False)
def _no_dispatch(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    op = tf.linalg.LinearOperatorFullMatrix(t["m"])
    return {
        "op_det": tf.linalg.det(op),
        "det": tf.linalg.det(t["m"]),
        "matmul": tf.linalg.matmul(t["m"], t["x"]),
        "solve": tf.linalg.solve(t["m"], t["x"]),
        "trace": tf.linalg.trace(t["m"]),
        "inv": tf.linalg.inv(t["m"]),
    }
