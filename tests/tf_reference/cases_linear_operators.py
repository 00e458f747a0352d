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
