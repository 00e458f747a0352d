"""Eigen- and singular-value decompositions as TF 1.15's CPU kernels compute them (Eigen's
SelfAdjointEigenSolver, BDCSVD/JacobiSVD, HouseholderQR): values and the signs of the
vectors. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_eigen_decompositions.py and on tfcluster by tests/unit/test_eigen_decompositions.py.
Python 3.7 code; inputs from seeded numpy.
"""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import error
except ImportError:  # run as a recorder from this folder
    from case_tools import error

EIGH_SIZES = [*range(1, 17), 20, 25, 32, 40]


def general_matrices(seed):
    """Three unsymmetric matrices per size (the kernels read the lower triangle only)."""
    rs = np.random.RandomState(seed)
    return [rs.randn(n, n) for n in EIGH_SIZES for _ in range(3)]


def repeated_eigenvalue_matrices():
    """Symmetric matrices with repeated eigenvalues, zeros and block structure."""
    rs = np.random.RandomState(7)
    q, _ = np.linalg.qr(rs.randn(6, 6))
    block = np.zeros((5, 5))
    block[:2, :2] = [[2.0, 1.0], [1.0, 3.0]]
    block[2:, 2:] = rs.randn(3, 3)
    block[2:, 2:] += block[2:, 2:].T
    return [
        np.eye(4),
        np.diag([3.0, 1.0, 1.0, 2.0]),
        np.zeros((3, 3)),
        q @ np.diag([1.0, 1.0, 2.0, 2.0, 2.0, 5.0]) @ q.T,
        block,
        np.ones((4, 4)),
    ]


def _eigh(tf, matrices, dtype):
    with tf.Graph().as_default():
        outs = [tf.linalg.eigh(tf.constant(m.astype(dtype))) for m in matrices]
        with tf.Session() as sess:
            got = sess.run(outs)
    return {"e": [e for e, _ in got], "v": [v for _, v in got]}


def eigh_general_float64(tf):
    return _eigh(tf, general_matrices(0), np.float64)


def eigh_general_float32(tf):
    return _eigh(tf, general_matrices(0), np.float32)


def eigh_repeated_float64(tf):
    return _eigh(tf, repeated_eigenvalue_matrices(), np.float64)


def eigh_repeated_float32(tf):
    return _eigh(tf, repeated_eigenvalue_matrices(), np.float32)


def _hermitian(seed, n, dtype):
    rs = np.random.RandomState(seed)
    return (rs.randn(n, n) + 1j * rs.randn(n, n)).astype(dtype)


def eigh_complex(tf):
    """complex128 and complex64 Hermitian inputs (lower triangle read)."""
    with tf.Graph().as_default():
        outs = [
            tf.linalg.eigh(tf.constant(_hermitian(n, n, dtype)))
            for dtype in (np.complex128, np.complex64)
            for n in (1, 2, 3, 5, 8, 12)
        ]
        with tf.Session() as sess:
            got = sess.run(outs)
    return {"e": [e for e, _ in got], "v": [v for _, v in got]}


def eigh_batched(tf):
    rs = np.random.RandomState(3)
    a64 = rs.randn(3, 2, 6, 6)
    a32 = rs.randn(4, 5, 5).astype(np.float32)
    with tf.Graph().as_default():
        e64, v64 = tf.linalg.eigh(tf.constant(a64))
        e32, v32 = tf.linalg.eigh(tf.constant(a32))
        values_only = tf.linalg.eigvalsh(tf.constant(a64))
        with tf.Session() as sess:
            got = sess.run([e64, v64, e32, v32, values_only])
    return dict(zip(["e64", "v64", "e32", "v32", "eigvalsh64"], got))


def eigh_values_only(tf):
    """compute_v=False (tf.self_adjoint_eigvals) of each size, both precisions."""
    with tf.Graph().as_default():
        outs = [
            tf.self_adjoint_eigvals(tf.constant(m.astype(dtype)))
            for dtype in (np.float64, np.float32)
            for m in general_matrices(1)[::3]
        ]
        with tf.Session() as sess:
            return {"e": sess.run(outs)}


def eigh_gradients(tf):
    """Gradients through eigenvectors depend on their signs."""
    rs = np.random.RandomState(5)
    a = rs.randn(5, 5)
    a = a + a.T
    w = rs.randn(5, 5)
    with tf.Graph().as_default():
        x = tf.constant(a)
        e, v = tf.linalg.eigh(x)
        loss = tf.reduce_sum(v * w) + tf.reduce_sum(e * e)
        grad = tf.gradients(loss, x)[0]
        with tf.Session() as sess:
            got = sess.run([loss, grad])
    return {"loss": got[0], "grad": got[1]}


def eigh_non_finite(tf):
    """nan off the diagonal (read or not), nan on it, inf: values, or the error class."""
    mats = [
        [[1.0, np.nan], [2.0, 3.0]],
        [[1.0, 0.0], [np.nan, 3.0]],
        [[np.nan, 0.0], [2.0, 3.0]],
        [[np.inf, 0.0], [2.0, 3.0]],
    ]
    out = {}
    with tf.Graph().as_default():
        for i, m in enumerate(mats):
            for compute_v in (True, False):
                x = tf.constant(np.array(m))
                op = tf.linalg.eigh(x) if compute_v else tf.linalg.eigvalsh(x)
                with tf.Session() as sess:
                    key = "{}_{}".format(i, "eigh" if compute_v else "eigvalsh")
                    failed = error(lambda op=op, sess=sess: sess.run(op))
                    out[key] = (
                        failed["error"]
                        if failed
                        else list(sess.run(op))
                        if compute_v
                        else sess.run(op)
                    )
    return out


SVD_SHAPES = [(1, 1), (2, 2), (3, 3), (4, 3), (3, 5), (6, 6), (8, 5), (10, 10), (16, 16)]
SVD_SHAPES += [(20, 20), (17, 30), (40, 24)]


def _svd_case(tf, dtype, full):
    rs = np.random.RandomState(11)
    mats = [rs.randn(*shape).astype(dtype) for shape in SVD_SHAPES]
    with tf.Graph().as_default():
        outs = [tf.linalg.svd(tf.constant(m), full_matrices=full) for m in mats]
        with tf.Session() as sess:
            got = sess.run(outs)
    return {"s": [g[0] for g in got], "u": [g[1] for g in got], "v": [g[2] for g in got]}


def svd_float64(tf):
    return _svd_case(tf, np.float64, False)


def svd_float64_full(tf):
    return _svd_case(tf, np.float64, True)


def svd_float32(tf):
    return _svd_case(tf, np.float32, False)


# Fewer than 16 columns: Eigen's JacobiSVD (with a pivoting QR first when not square).
SVD_JACOBI_SHAPES = [(5, 1), (1, 6), (2, 7), (7, 2), (12, 12), (15, 15), (100, 10), (30, 15)]
SVD_JACOBI_SHAPES += [(9, 4), (4, 9), (13, 13), (15, 40), (64, 3)]


def svd_jacobi_shapes(tf):
    """Both precisions, thin and full, of shapes TF hands to JacobiSVD; a batch; values only."""
    rs = np.random.RandomState(13)
    mats = [rs.randn(*shape) for shape in SVD_JACOBI_SHAPES]
    batch = rs.randn(2, 3, 6, 4)
    with tf.Graph().as_default():
        outs = [
            tf.linalg.svd(tf.constant(m.astype(dtype)), full_matrices=full)
            for m in mats
            for dtype in (np.float64, np.float32)
            for full in (False, True)
        ]
        batched = tf.linalg.svd(tf.constant(batch))
        values = tf.linalg.svd(tf.constant(batch), compute_uv=False)
        with tf.Session() as sess:
            got, got_batch, got_values = sess.run([outs, batched, values])
    return {
        "s": [g[0] for g in got],
        "u": [g[1] for g in got],
        "v": [g[2] for g in got],
        "batch": list(got_batch),
        "values_only": got_values,
    }


def svd_gradients(tf):
    """Gradients through the singular vectors depend on their signs."""
    rs = np.random.RandomState(14)
    a = rs.randn(6, 4)
    wu, wv = rs.randn(6, 4), rs.randn(4, 4)
    with tf.Graph().as_default():
        x = tf.constant(a)
        s, u, v = tf.linalg.svd(x)
        loss = tf.reduce_sum(u * wu) + tf.reduce_sum(v * wv) + tf.reduce_sum(s * s)
        grad = tf.gradients(loss, x)[0]
        with tf.Session() as sess:
            got = sess.run([loss, grad])
    return {"loss": got[0], "grad": got[1]}


def qr_cases(tf):
    rs = np.random.RandomState(12)
    mats = [rs.randn(*shape) for shape in [(3, 3), (5, 3), (3, 5), (8, 8)]]
    with tf.Graph().as_default():
        outs = [tf.linalg.qr(tf.constant(m), full_matrices=f) for m in mats for f in (False, True)]
        with tf.Session() as sess:
            got = sess.run(outs)
    return {"q": [g[0] for g in got], "r": [g[1] for g in got]}


CASES = {
    name: fn
    for name, fn in list(globals().items())
    if callable(fn) and name.startswith(("eigh_", "svd_", "qr_"))
}
