"""Cases of tf.linalg and the tf.matrix_* ops, einsum and tensordot, run on TensorFlow by
record_linalg.py and on tfcluster by tests/unit/test_tf_reference_linalg.py. Factorisations
whose signs are a convention (QR, SVD, eigenvectors) are compared in a sign-free form."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_linalg by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

F32 = np.float32
_B = values((2, 3, 3), seed=30)
# Well conditioned batches: random plus a dominant diagonal; and symmetric positive definite.
GENERAL = _B + 3.0 * np.eye(3)
SPD = np.einsum("bij,bkj->bik", _B, _B) + 2.0 * np.eye(3)
RHS = values((2, 3, 2), seed=31)
TALL = values((4, 3), seed=32)
WIDE = values((2, 4), seed=33)


def _sign_fixed(tf: Any, m: Any) -> Any:
    """Columns scaled so their largest-magnitude entry is positive."""
    magnitude = tf.abs(m)
    is_pivot = tf.cast(tf.equal(magnitude, tf.reduce_max(magnitude, -2, keepdims=True)), m.dtype)
    return m * tf.sign(tf.reduce_sum(m * is_pivot, -2, keepdims=True))


@add("matrix_inverse", {"a": GENERAL}, grad=("y", ("a",)))
def _inv(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.linalg.inv(t["a"]),
        "adjoint": tf.matrix_inverse(t["a"], adjoint=True),
        "f32": tf.linalg.inv(tf.cast(t["a"], tf.float32)),
    }


@add("matrix_inverse_singular_fails", {"a": np.ones((2, 2))})
def _inv_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.matrix_inverse(t["a"])}


@add("matrix_inverse_not_square_fails_at_build", {"a": np.ones((2, 3))})
def _inv_bad_shape(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.matrix_inverse(t["a"])}


@add("determinants", {"a": GENERAL}, grad=("det", ("a",)))
def _det(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    sign, logabs = tf.linalg.slogdet(t["a"])
    return {
        "det": tf.linalg.det(t["a"]),
        "top": tf.matrix_determinant(t["a"][0]),
        "sign": sign,
        "logabs": logabs,
    }


@add("slogdet_gradient", {"a": GENERAL}, grad=("logabs", ("a",)))
def _slogdet(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"logabs": tf.linalg.slogdet(t["a"])[1]}


@add("logdet", {"a": SPD}, grad=("y", ("a",)))
def _logdet(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.logdet(t["a"])}


@add("cholesky", {"a": SPD}, grad=("y", ("a",)))
def _cholesky(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.cholesky(t["a"]), "lin": tf.linalg.cholesky(tf.cast(t["a"], tf.float32))}


@add("cholesky_solve", {"a": SPD, "b": RHS}, grad=("y", ("a", "b")))
def _cholesky_solve(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.cholesky_solve(tf.cholesky(t["a"]), t["b"])}


@add("solves", {"a": GENERAL, "b": RHS}, grad=("y", ("a", "b")))
def _solve(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.linalg.solve(t["a"], t["b"]),
        "adj": tf.matrix_solve(t["a"], t["b"], adjoint=True),
    }


@add("triangular_solves", {"a": GENERAL, "b": RHS}, grad=("upper", ("a", "b")))
def _triangular(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "lower": tf.linalg.triangular_solve(t["a"], t["b"]),
        "upper": tf.matrix_triangular_solve(t["a"], t["b"], lower=False),
        "adj": tf.matrix_triangular_solve(t["a"], t["b"], adjoint=True),
    }


@add(
    "lstsq_tall_and_wide",
    {"tall": TALL, "wide": WIDE, "b4": values((4, 2), seed=34), "b2": values((2, 2), seed=35)},
    grad=("tall_x", ("tall", "b4")),
)
def _lstsq(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "tall_x": tf.linalg.lstsq(t["tall"], t["b4"]),
        "wide_x": tf.matrix_solve_ls(t["wide"], t["b2"]),
        "reg": tf.linalg.lstsq(t["tall"], t["b4"], l2_regularizer=0.5),
    }


@add("qr", {"a": TALL}, grad=("y", ("a",)))
def _qr(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    q, r = tf.qr(t["a"])
    qf, rf = tf.linalg.qr(t["a"], full_matrices=True)
    # QR is unique up to the signs of R's rows: compare Q R and |R|.
    return {"qr": tf.matmul(q, r), "abs_r": tf.abs(r), "full_qr": tf.matmul(qf, rf), "y": tf.abs(q)}


@add("svd", {"a": TALL, "w": WIDE}, grad=("y", ("a",)))
def _svd(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    s, u, v = tf.svd(t["a"])
    sw, uw, vw = tf.linalg.svd(t["w"], full_matrices=True)
    y = tf.reduce_sum(s) + tf.reduce_sum(tf.abs(u) * 0.5) + tf.reduce_sum(tf.abs(v) * 0.25)
    return {
        "s": s,
        "u": _sign_fixed(tf, u),
        "v": _sign_fixed(tf, v),
        "s_only": tf.svd(t["a"], compute_uv=False),
        "sw": sw,
        "uw": _sign_fixed(tf, uw),
        "vw_shape": tf.shape(vw),
        "y": y,
    }


@add("svd_values_gradient", {"a": TALL}, grad=("s", ("a",)))
def _svd_s(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"s": tf.svd(t["a"], compute_uv=False)}


@add("self_adjoint_eig", {"a": SPD}, grad=("y", ("a",)))
def _eigh(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    e, v = tf.linalg.eigh(t["a"])
    return {
        "e": e,
        "v": _sign_fixed(tf, v),
        "vals": tf.linalg.eigvalsh(t["a"]),
        "old_e": tf.self_adjoint_eig(t["a"])[0],
        "old_vals": tf.self_adjoint_eigvals(t["a"]),
        "y": tf.reduce_sum(e) + tf.reduce_sum(tf.abs(v)),
    }


@add("lu", {"a": values((3, 3), seed=36)}, names=False)
def _lu(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"lu": tf.linalg.lu(t["a"]), "lu64": tf.linalg.lu(t["a"], output_idx_type=tf.int64)}


@add(
    "expm",
    {"a": values((2, 3, 3), seed=37)},
    grad=("y", ("a",)),
    names=False,
    notes="TF builds expm from matmuls in a while loop; tfcluster has one op",
)
def _expm(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.linalg.expm(t["a"]), "big": tf.linalg.expm(t["a"] * 8.0)}


@add("band_part", {"a": values((2, 3, 4), seed=38)}, grad=("y", ("a",)))
def _band(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.matrix_band_part(t["a"], 1, 0),
        "upper": tf.linalg.band_part(t["a"], 0, -1),
        "all": tf.linalg.band_part(t["a"], -1, -1),
        "tri": tf.linalg.band_part(t["a"], 1, 2),
    }


@add(
    "diag_ops",
    {"d": values((2, 3), seed=39), "m": values((2, 3, 4), seed=40)},
    grad=("y", ("d", "m")),
)
def _diag(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    d, m = t["d"], t["m"]
    y = (
        tf.reduce_sum(tf.linalg.diag(d) * 2.0)
        + tf.reduce_sum(tf.linalg.diag_part(m) * 3.0)
        + tf.reduce_sum(tf.linalg.set_diag(m, d) * 0.5)
    )
    return {
        "diag": tf.linalg.diag(d),
        "matrix_diag": tf.matrix_diag(d),
        "part": tf.linalg.diag_part(m),
        "matrix_part": tf.matrix_diag_part(m),
        "set": tf.linalg.set_diag(m, d),
        "matrix_set": tf.matrix_set_diag(m, d),
        "y": y,
    }


@add(
    "diag_bands_k",
    {"m": values((3, 4), seed=41), "d": values((2, 3), seed=42)},
    names=False,
    grad=("part", ("m",)),
)
def _diag_k(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    m, d = t["m"], t["d"]
    return {
        "part": tf.linalg.diag_part(m, k=(-1, 1)),
        "diag": tf.linalg.diag(d, k=(0, 1)),
        "diag_rect": tf.linalg.diag(d[0], k=1, num_rows=3, num_cols=5, padding_value=9.0),
        "set": tf.linalg.set_diag(m, tf.ones([2, 3], tf.float64), k=(0, 1)),
        "part_pad": tf.linalg.diag_part(m, k=2, padding_value=-1.0),
    }


@add(
    "tensor_diag_and_trace",
    {"d": values((2, 3), seed=43), "m": values((2, 3, 3), seed=44)},
    grad=("y", ("d", "m")),
)
def _tensor_diag(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    full = tf.diag(t["d"])
    y = tf.reduce_sum(full * 2.0) + tf.reduce_sum(tf.trace(t["m"]))
    return {
        "diag": full,
        "part": tf.diag_part(full),
        "ldiag": tf.linalg.tensor_diag(t["d"]),
        "lpart": tf.linalg.tensor_diag_part(full),
        "trace": tf.trace(t["m"]),
        "ltrace": tf.linalg.trace(t["m"]),
        "y": y,
    }


@add("eye", {})
def _eye(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "sq": tf.eye(3),
        "rect": tf.eye(2, 4, dtype=tf.int32),
        "batch": tf.eye(2, batch_shape=[3]),
        "lin": tf.linalg.eye(3, 2, batch_shape=[2], dtype=tf.float64),
        "dyn": tf.eye(tf.constant(2), batch_shape=tf.constant([2])),
    }


@add(
    "transpose_adjoint_matvec",
    {"a": values((2, 3, 4), seed=45), "v": values((2, 4), seed=46)},
    grad=("mv", ("a", "v")),
)
def _transpose(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "t": tf.matrix_transpose(t["a"]),
        "lt": tf.linalg.transpose(t["a"]),
        "adj": tf.linalg.adjoint(t["a"]),
        "mv": tf.linalg.matvec(t["a"], t["v"]),
    }


@add("norms", {"x": values((3, 4), seed=47)}, grad=("fro", ("x",)))
def _norms(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "fro": tf.norm(x),
        "axis": tf.norm(x, axis=1),
        "keep": tf.norm(x, axis=0, keepdims=True),
        "l1": tf.norm(x, ord=1, axis=1),
        "inf": tf.norm(x, ord=np.inf),
        "p3": tf.norm(x, ord=3, axis=0),
        "m1": tf.norm(x, ord=1, axis=[0, 1]),
        "minf": tf.norm(x, ord=np.inf, axis=(0, 1)),
        "mfro": tf.linalg.norm(x, ord="fro", axis=[0, 1]),
        "l2": tf.norm(x, ord=2, axis=1),
        "normalize": tf.linalg.normalize(x, axis=1),
    }


@add(
    "matrix_two_norm",
    {"x": values((2, 3, 4), seed=48)},
    names=False,
    notes="TF maps over the axes with map_fn; tfcluster permutes statically",
)
def _two_norm(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "m2": tf.norm(t["x"], ord=2, axis=[1, 2]),
        "m2_keep": tf.norm(t["x"], ord=2, axis=[0, 2], keepdims=True),
    }


@add("norm_bad_ord_fails_at_build", {"x": values((3, 4), seed=47)})
def _norm_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.norm(t["x"], ord="nuc", axis=[0, 1])}


@add("cross", {"a": values((4, 3), seed=49), "b": values((4, 3), seed=50)}, grad=("y", ("a", "b")))
def _cross(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.cross(t["a"], t["b"]), "lin": tf.linalg.cross(t["a"], t["b"])}


@add("pinv_and_rank", {"a": TALL, "w": WIDE})
def _pinv(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    deficient = tf.concat([t["a"][:, :2], t["a"][:, :1] * 2.0], 1)
    return {
        "pinv": tf.linalg.pinv(t["a"]),
        "pinv_w": tf.linalg.pinv(t["w"]),
        "rank": tf.linalg.matrix_rank(t["a"]),
        "rank_def": tf.linalg.matrix_rank(deficient),
    }


_EINSUM = [
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("implicit", "ij,jk", [(2, 3), (3, 4)]),
    ("trace_like_sum", "ij->", [(3, 4)]),
    ("transpose", "ij->ji", [(3, 4)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("batch", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ellipsis", "...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
    ("reduce_only_in_a", "ij,j->", [(3, 4), (4,)]),
    ("bilinear", "bi,ij,bj->b", [(2, 3), (3, 4), (2, 4)]),
    ("attention", "bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
]
for _name, _eq, _shapes in _EINSUM:
    _inputs = {f"x{i}": values(s, seed=60 + i) for i, s in enumerate(_shapes)}

    # TF contracts three inputs pairwise (two Einsum ops); tfcluster with one.
    @add(f"einsum_{_name}", _inputs, grad=("y", tuple(_inputs)), names=len(_shapes) < 3)
    def _einsum(tf: Any, t: dict[str, Any], eq: str = _eq) -> dict[str, Any]:
        return {"y": tf.einsum(eq, *[t[k] for k in sorted(t)])}


@add("einsum_diagonal_forward", {"x": values((3, 3), seed=70)})
def _einsum_diag(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"diag": tf.einsum("ii->i", t["x"]), "trace": tf.einsum("ii", t["x"])}


@add(
    "einsum_bad_shapes_fails_at_build", {"a": values((2, 3), seed=71), "b": values((4, 5), seed=72)}
)
def _einsum_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.einsum("ij,jk->ik", t["a"], t["b"])}


@add(
    "tensordot",
    {"a": values((2, 3, 4), seed=73), "b": values((4, 3, 5), seed=74)},
    grad=("y", ("a", "b")),
    names=False,
    notes=(
        "TF 2.x leaves out a Transpose/Reshape that changes nothing; TF 1.15 always makes them "
        "and names the final Reshape Tensordot: constant_proto_cases.tensordot_graph checks "
        "1.15's ops"
    ),
)
def _tensordot(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a, b = t["a"], t["b"]
    return {
        "y": tf.tensordot(a, b, [[1, 2], [1, 0]]),
        "one": tf.tensordot(a, b, 1),
        "zero": tf.tensordot(a[0, 0], b[0, 0], 0),
        "pair": tf.tensordot(a, b, axes=(2, 0)),
        "lin": tf.linalg.tensordot(a, b, [[2], [0]]),
    }


@add(
    "tensordot_unknown_shapes",
    {"a": values((2, 3, 4), seed=73), "b": values((4, 3, 5), seed=74)},
    names=False,
    grad=("y", ("a", "b")),
)
def _tensordot_dynamic(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a = tf.placeholder_with_default(t["a"], [None, None, None])
    b = tf.placeholder_with_default(t["b"], [None, None, None])
    return {"y": tf.tensordot(a, b, [[1, 2], [1, 0]])}


@add(
    "linalg_with_unknown_shapes",
    {"a": GENERAL, "b": RHS},
    grad=("y", ("a", "b")),
    unknown_shapes=True,
)
def _linalg_unknown(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    a, b = t["a"], t["b"]
    y = tf.linalg.solve(a, b) + tf.matmul(tf.linalg.inv(a), b) * tf.reshape(
        tf.linalg.det(a), [-1, 1, 1]
    )
    return {
        "y": y,
        "diag": tf.linalg.diag_part(a),
        "band": tf.matrix_band_part(a, 0, 1),
        "einsum": tf.einsum("bij,bjk->bik", a, b),
    }
