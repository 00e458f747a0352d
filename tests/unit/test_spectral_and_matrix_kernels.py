"""Kernel paths the TF-recorded cases are too small to reach: FFTs of a batch large enough to
be spread over the cores, the cyclic-reduction path of tridiagonal_solve (long, diagonally
dominant systems) beside the pivoting one, and matrix functions over batches where some
members have no principal root."""

from __future__ import annotations

import numpy as np
import tfcluster as tf


def _run(t: object, feed: dict | None = None) -> np.ndarray:
    with tf.Session() as sess:
        return np.asarray(sess.run(t, feed))


def test_a_large_batch_of_ffts_matches_numpy() -> None:
    x = np.random.default_rng(0).standard_normal((24, 128, 130)).astype(np.float32)
    got = _run(tf.signal.rfft2d(tf.constant(x)))
    np.testing.assert_allclose(got, np.fft.rfft2(x), rtol=1e-4, atol=1e-3)
    z = (x + 1j * x[::-1]).astype(np.complex64)
    np.testing.assert_allclose(
        _run(tf.signal.ifft(tf.constant(z))), np.fft.ifft(z), rtol=1e-4, atol=1e-5
    )


def _dense(diags: np.ndarray) -> np.ndarray:
    sup, main, sub = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    out = np.zeros((*main.shape, main.shape[-1]))
    for b in np.ndindex(main.shape[:-1]):
        out[b] = np.diag(main[b]) + np.diag(sup[b][:-1], 1) + np.diag(sub[b][1:], -1)
    return out


def test_long_dominant_and_pivoting_tridiagonal_systems_solve_exactly() -> None:
    rng = np.random.default_rng(1)
    dominant = rng.uniform(-1, 1, (3, 3, 300)) + np.array([0, 3.5, 0])[:, None]
    weak = rng.uniform(-1, 1, (3, 3, 40))
    for diags in (dominant, weak):
        rhs = rng.standard_normal((3, diags.shape[-1], 2))
        x = _run(tf.linalg.tridiagonal_solve(tf.constant(diags), tf.constant(rhs)))
        np.testing.assert_allclose(_dense(diags) @ x, rhs, atol=1e-9)


def test_tridiagonal_matmul_matches_the_dense_product() -> None:
    rng = np.random.default_rng(2)
    diags, rhs = rng.standard_normal((2, 3, 7)), rng.standard_normal((2, 7, 3))
    got = _run(tf.linalg.tridiagonal_matmul(tf.constant(diags), tf.constant(rhs)))
    np.testing.assert_allclose(got, _dense(diags) @ rhs, atol=1e-12)


def test_sqrtm_gives_nan_only_for_the_members_without_a_real_root() -> None:
    good = np.array([[4.0, 1.0], [0.0, 9.0]])
    batch = np.stack([good, np.diag([-4.0, 9.0]), np.array([[0.0, -1.0], [1.0, 0.0]])])
    root = _run(tf.linalg.sqrtm(tf.constant(batch)))
    np.testing.assert_allclose(root[0] @ root[0], good, atol=1e-12)
    assert np.isnan(root[1]).all()
    np.testing.assert_allclose(root[2] @ root[2], batch[2], atol=1e-12)
    # The same matrix as complex has the complex root 2i.
    c = _run(tf.linalg.sqrtm(tf.constant(batch[1].astype(np.complex128))))
    np.testing.assert_allclose(c, np.diag([2j, 3.0]), atol=1e-12)


def test_logm_inverts_expm() -> None:
    rng = np.random.default_rng(3)
    a = (0.3 * rng.standard_normal((4, 5, 5)) + 0.3j * rng.standard_normal((4, 5, 5))).astype(
        np.complex128
    )
    back = _run(tf.linalg.logm(tf.linalg.expm(tf.constant(a))))
    np.testing.assert_allclose(back, a, atol=1e-10)
