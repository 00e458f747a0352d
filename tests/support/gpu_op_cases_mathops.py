"""GPU comparison cases (see gpu_op_cases.py) of the math, linalg, segment, scatter, nn
normalisation and random ops whose kernels are written once over xp."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf
from tfcluster.ops import linalg_ops, op_util, partition_ops, special_math_ops

from support.gpu_op_cases import CASES, Build


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _const(value: Any, dtype: Any = np.float32) -> Any:
    return tf.constant(np.asarray(value, dtype=dtype))


def _vals(shape: tuple[int, ...], low: float = -2.0, high: float = 2.0, seed: int = 7) -> Any:
    rng = np.random.default_rng(seed)
    return tf.constant(rng.uniform(low, high, shape).astype(np.float32))


def _grad(y: Any, x: Any) -> Any:
    """d(sum(w * y))/dx with weights that vary over y (whose shape may be dynamic)."""
    ramp = tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype)
    return tf.gradients(y, x, grad_ys=0.5 + tf.floormod(ramp, 5.0) / 4.0)[0]


@_case(
    "Erf",
    "Erfc",
    "Lgamma",
    "Digamma",
    "BesselI0e",
    "BesselI1e",
    "Sinh",
    "Cosh",
    "Asinh",
    "Atanh",
    "Acosh",
    "Rint",
)
def _unary() -> Build:
    x = _vals((3, 4), 0.2, 3.0)
    return Build(
        [
            tf.erf(x),
            tf.erfc(x),
            tf.lgamma(x),
            tf.digamma(x),
            tf.math.bessel_i0e(x * 4),
            tf.math.bessel_i1e(x - 1),
            tf.sinh(x),
            tf.cosh(x),
            tf.asinh(x),
            tf.atanh(x / 4),
            tf.acosh(x + 1),
            tf.rint(x * 3),
        ]
    )


@_case(
    "Igamma",
    "Igammac",
    "IgammaGradA",
    "Zeta",
    "Polygamma",
    "Betainc",
    "Atan2",
    "NextAfter",
    "Xlogy",
    "Xdivy",
    "MulNoNan",
)
def _binary() -> Build:
    a = _vals((2, 3), 0.5, 3.0)
    x = _vals((2, 3), 0.1, 4.0, seed=8)
    u = _vals((2, 3), 0.1, 0.9, seed=9)
    return Build(
        [
            tf.igamma(a, x),
            tf.igammac(a, x),
            special_math_ops.igamma_grad_a(a, x),
            tf.zeta(a + 1.5, x),
            tf.polygamma(tf.round(a), x),
            tf.betainc(a, x, u),
            tf.atan2(a, x - 2),
            tf.math.nextafter(a, x),
            tf.math.xlogy(a - 1, x),
            tf.math.xdivy(a - 1, x),
            tf.math.multiply_no_nan(a, x - 1),
        ]
    )


@_case("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift")
def _bitwise() -> Build:
    a = _const([[5, -3, 100], [0, 7, -128]], np.int32)
    b = _const([3, 1, 30], np.int32)
    return Build(
        [
            tf.bitwise.bitwise_and(a, b),
            tf.bitwise.bitwise_or(a, b),
            tf.bitwise.bitwise_xor(a, b),
            tf.bitwise.invert(a),
            tf.bitwise.left_shift(a, b),
            tf.bitwise.right_shift(a, b),
        ]
    )


@_case("EuclideanNorm", "CumulativeLogsumexp")
def _reductions() -> Build:
    x = _vals((3, 4))
    return Build(
        [
            tf.math.reduce_euclidean_norm(x, axis=1),
            tf.math.cumulative_logsumexp(x, axis=1, reverse=True),
            _grad(tf.math.cumulative_logsumexp(x, axis=0), x),
        ]
    )


@_case("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")
def _segments() -> Build:
    x = _vals((5, 3))
    ids = _const([0, 0, 1, 3, 3], np.int32)
    big = _const([[5, -7], [1 << 40, 3], [-1, 1], [9, -(1 << 40)], [4, 4]], np.int64)
    return Build(
        [
            tf.segment_sum(x, ids),
            tf.segment_mean(x, ids),
            tf.segment_max(x, ids),
            tf.segment_min(x, ids),
            tf.segment_prod(x, ids),
            # Dtypes cupy's scatters do not take directly.
            tf.segment_sum(big, ids),
            tf.segment_max(big, ids),
            tf.segment_min(tf.cast(x, tf.float16), ids),
        ]
    )


@_case("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")
def _unsorted_segments() -> Build:
    x = _vals((5, 3))
    ids = _const([2, -1, 0, 2, 3], np.int32)
    big = _const([[5, -7], [1 << 40, 3], [-1, 1], [9, -(1 << 40)], [4, 4]], np.int64)
    small = _const([[100, -7], [50, 3], [-1, 1], [90, -128], [4, 4]], np.int8)  # sums wrap
    half = tf.cast(x, tf.float16)
    return Build(
        [
            tf.unsorted_segment_sum(x, ids, 4),
            tf.unsorted_segment_max(x, ids, 4),
            tf.unsorted_segment_min(x, ids, 4),
            tf.unsorted_segment_prod(x, ids, 4),
            # Dtypes cupy's scatters do not take directly.
            tf.unsorted_segment_sum(big, ids, 4),
            tf.unsorted_segment_max(big, ids, 4),
            tf.unsorted_segment_min(big, ids, 4),
            tf.unsorted_segment_sum(small, ids, 4),
            tf.unsorted_segment_max(small, ids, 4),
            tf.unsorted_segment_max(half, ids, 4),
            tf.unsorted_segment_min(half, ids, 4),
            tf.unsorted_segment_sum(tf.complex(x, -2.0 * x), ids, 4),
        ]
    )


@_case(
    "SparseSegmentSum",
    "SparseSegmentMean",
    "SparseSegmentSqrtN",
    "SparseSegmentMeanGrad",
    "SparseSegmentSqrtNGrad",
    "SparseSegmentSumWithNumSegments",
    "SparseSegmentMeanWithNumSegments",
    "SparseSegmentSqrtNWithNumSegments",
)
def _sparse_segments() -> Build:
    x = _vals((5, 3))
    idx = _const([4, 0, 1, 1], np.int32)
    ids = _const([0, 0, 2, 2], np.int32)
    mean = tf.sparse_segment_mean(x, idx, ids)
    sqrt_n = tf.sparse_segment_sqrt_n(x, idx, ids)
    return Build(
        [
            tf.sparse_segment_sum(x, idx, ids),
            mean,
            sqrt_n,
            _grad(mean, x),
            _grad(sqrt_n, x),
            tf.sparse_segment_sum(x, idx, ids, num_segments=4),
            tf.sparse_segment_mean(x, idx, ids, num_segments=4),
            tf.sparse_segment_sqrt_n(x, idx, ids, num_segments=4),
        ]
    )


def _scatter_case(op: str) -> Callable[[], Build]:
    def build() -> Build:
        var = tf.Variable(np.arange(1, 13, dtype=np.float32).reshape(4, 3))
        if op.startswith("ScatterNd"):
            fn = {
                "ScatterNdUpdate": tf.scatter_nd_update,
                "ScatterNdAdd": tf.scatter_nd_add,
                "ScatterNdSub": tf.scatter_nd_sub,
            }[op]
            update = fn(var, _const([[1, 2], [3, 0]], np.int32), _const([5.0, -1.5]))
        else:
            fn = getattr(tf, "scatter_" + op[len("Scatter") :].lower())
            rows = [2, 0] if op == "ScatterUpdate" else [2, 0, 2]
            update = fn(var, _const(rows, np.int32), _vals((len(rows), 3), 0.5, 2.0))
        return Build([var], before=[[var.initializer], [update]])

    return build


for _op in (
    "ScatterUpdate",
    "ScatterAdd",
    "ScatterSub",
    "ScatterMul",
    "ScatterDiv",
    "ScatterMax",
    "ScatterMin",
    "ScatterNdUpdate",
    "ScatterNdAdd",
    "ScatterNdSub",
):
    CASES[_op] = _scatter_case(_op)


@_case("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub")
def _tensor_scatter() -> Build:
    x = _vals((4, 3))
    idx = _const([[2], [0], [2]], np.int32)  # a repeated index: its updates accumulate
    up = _vals((3, 3), seed=11)
    big = _const([[1 << 40, -3, 7], [2, 2, 2], [-(1 << 41), 5, 0], [0, 1, -1]], np.int64)
    big_up = _const([[1 << 40, 4, -9], [-1, 1, -1], [3, -(1 << 42), 6]], np.int64)
    return Build(
        [
            tf.tensor_scatter_update(x, idx[:2], up[:2]),
            tf.tensor_scatter_add(x, idx, up),
            tf.tensor_scatter_sub(x, idx, up),
            # Dtypes cupy's scatters do not take directly.
            tf.tensor_scatter_add(big, idx, big_up),
            tf.tensor_scatter_sub(big, idx, big_up),
            tf.tensor_scatter_add(tf.complex(x, x), idx, tf.complex(up, -up)),
        ]
    )


@_case("DynamicPartition", "DynamicStitch", "ParallelDynamicStitch")
def _partition() -> Build:
    x = _vals((5, 2))
    parts = tf.dynamic_partition(x, _const([1, 0, 2, 1, 1], np.int32), 3)
    idx = [_const([1], np.int32), _const([0, 3, 4], np.int32), _const([2], np.int32)]
    return Build(
        [*parts, tf.dynamic_stitch(idx, parts), partition_ops.parallel_dynamic_stitch(idx, parts)]
    )


@_case("TopKV2", "InTopKV2", "LowerBound", "UpperBound")
def _ordering() -> Build:
    x = _const([[3.0, 1.0, 3.0, 2.0], [0.5, 5.0, 5.0, -1.0]])
    seq = _const([[1.0, 2.0, 2.0, 5.0], [0.0, 1.0, 2.0, 3.0]])
    v = _const([[2.0, 6.0, 0.0], [1.5, 3.0, -1.0]])
    top = tf.nn.top_k(x, 3)
    return Build(
        [
            *top,
            tf.nn.in_top_k(x, _const([2, 3], np.int32), 2),
            tf.searchsorted(seq, v),
            tf.searchsorted(seq, v, side="right"),
        ]
    )


@_case("Bincount", "UniqueWithCounts", "ListDiff", "HistogramFixedWidth")
def _counting() -> Build:
    a = _const([1, 1, 3, 0, 7], np.int32)
    return Build(
        [
            tf.bincount(a, minlength=9),
            *tf.unique_with_counts(a),
            *tf.setdiff1d(a, _const([1, 5], np.int32)),
            tf.histogram_fixed_width(_vals((10,)), [-1.0, 1.0], nbins=4),
        ]
    )


@_case("Complex", "Real", "Imag", "Angle")
def _complex() -> Build:
    z = tf.complex(_vals((2, 3)), _vals((2, 3), seed=15))
    return Build([tf.real(z), tf.imag(z), tf.angle(z), tf.real(z * z)])


@_case("LinSpace")
def _lin_space() -> Build:
    return Build([tf.linspace(-1.0, 2.0, 7), tf.lin_space(_const(0.5, np.float64), 1.5, 3)])


@_case("ReverseSequence", "Roll", "MatrixBandPart")
def _reordering() -> Build:
    x = _vals((3, 4, 2))
    return Build(
        [
            tf.reverse_sequence(x, _const([2, 4, 0], np.int64), 1),
            tf.roll(x, [1, -1], [0, 2]),
            tf.matrix_band_part(x, 1, 0),
        ]
    )


def _spd() -> Any:
    b = np.random.default_rng(5).uniform(-1, 1, (2, 3, 3))
    return tf.constant((np.einsum("bij,bkj->bik", b, b) + 2 * np.eye(3)).astype(np.float32))


@_case(
    "MatrixInverse",
    "MatrixDeterminant",
    "LogMatrixDeterminant",
    "Cholesky",
    "MatrixExponential",
    "Lu",
)
def _square() -> Build:
    a = _spd()
    lu, perm = tf.linalg.lu(a)
    return Build(
        [
            tf.linalg.inv(a),
            tf.linalg.det(a),
            *tf.linalg.slogdet(a),
            tf.cholesky(a),
            linalg_ops.matrix_exponential(a * 0.1),
            lu,
            perm,
        ]
    )


@_case("SelfAdjointEigV2")
def _self_adjoint_eig() -> Build:
    # Its own case: the CPU runs Eigen's solver, so values are a few ulps from the GPU's.
    e, v = tf.linalg.eigh(_spd())
    return Build([e, tf.abs(v)])


@_case("Qr")
def _factorisations() -> Build:
    a = _vals((4, 3))
    q, r = tf.qr(a)
    return Build([tf.matmul(q, r), tf.abs(r)])


@_case("Svd")
def _svd() -> Build:
    # Its own case: the CPU runs Eigen's JacobiSVD, so values are a few ulps from the GPU's.
    s, u, v = tf.svd(_vals((4, 3)))
    return Build([s, tf.abs(u), tf.abs(v)])


@_case("MatrixSolve", "MatrixTriangularSolve", "MatrixSolveLs")
def _solves() -> Build:
    a = _spd()
    b = _vals((2, 3, 2))
    return Build(
        [
            tf.linalg.solve(a, b),
            tf.linalg.triangular_solve(a, b, lower=False),
            tf.matrix_solve_ls(a, b, fast=False),
        ]
    )


@_case(
    "MatrixDiag",
    "MatrixDiagPart",
    "MatrixSetDiag",
    "MatrixDiagV2",
    "MatrixDiagPartV2",
    "MatrixSetDiagV2",
    "MatrixDiagV3",
    "MatrixDiagPartV3",
    "MatrixSetDiagV3",
    "Diag",
    "DiagPart",
    "Cross",
    "Einsum",
)
def _diagonals() -> Build:
    d = _vals((2, 3))
    m = _vals((2, 3, 4), seed=12)
    k = _const([0, 1], np.int32)
    pad = _const(0.0)
    v1 = op_util.make_op("MatrixDiag", [d], {"T": tf.float32}).outputs[0]
    v2 = op_util.make_op(
        "MatrixDiagV2",
        [d[0:1], k[:1], _const(-1, np.int32), _const(-1, np.int32), pad],
        {"T": tf.float32},
    ).outputs[0]
    part1 = op_util.make_op("MatrixDiagPart", [m], {"T": tf.float32}).outputs[0]
    part2 = op_util.make_op("MatrixDiagPartV2", [m, k, pad], {"T": tf.float32}).outputs[0]
    set1 = op_util.make_op("MatrixSetDiag", [m, d], {"T": tf.float32}).outputs[0]
    set2 = op_util.make_op("MatrixSetDiagV2", [m, part2, k], {"T": tf.float32}).outputs[0]
    return Build(
        [
            v1,
            v2,
            part1,
            part2,
            set1,
            set2,
            tf.linalg.diag(d, k=(0, 1)),
            tf.linalg.diag_part(m, k=(-1, 1)),
            tf.linalg.set_diag(m, d, k=1),
            tf.diag(d[0]),
            tf.diag_part(tf.diag(d)),
            tf.cross(m[:, :, :3], m[:, :, 1:]),
            tf.einsum("bij,bkj->bik", m, m),
        ]
    )


@_case(
    "FusedBatchNorm",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
    "FusedBatchNormGrad",
    "FusedBatchNormGradV2",
    "FusedBatchNormGradV3",
)
def _fused_batch_norm() -> Build:
    x = _vals((2, 3, 4, 5))
    scale, offset = _vals((5,), 0.5, 1.5, seed=13), _vals((5,), seed=14)
    fetches = []
    for version in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
        op = op_util.make_op(
            version,
            [x, scale, offset, _const([]), _const([])],
            {
                "T": tf.float32,
                "U": tf.float32,
                "epsilon": 1e-3,
                "data_format": "NHWC",
                "is_training": True,
            },
        )
        y = op.outputs[0]
        fetches += [
            y,
            op.outputs[1],
            op.outputs[2],
            *tf.gradients(y, [x, scale, offset], grad_ys=x * 0.5),
        ]
    for grad_op in ("FusedBatchNormGrad", "FusedBatchNormGradV2"):
        op = op_util.make_op(
            grad_op,
            [x * 0.5, x, scale, offset, scale],
            {
                "T": tf.float32,
                "U": tf.float32,
                "epsilon": 1e-3,
                "data_format": "NHWC",
                "is_training": True,
            },
        )
        fetches += list(op.outputs[:3])
    y, _, _ = tf.nn.fused_batch_norm(x, scale, offset, offset, scale, is_training=False)
    fetches += [y, _grad(y, x)]
    return Build(fetches)


@_case("LRN", "LRNGrad")
def _lrn() -> Build:
    x = _vals((2, 3, 4, 5))
    y = tf.nn.lrn(x, depth_radius=2, alpha=0.3, beta=0.75)
    return Build([y, _grad(y, x)])


# Stateless draws are pure functions of the seed: both devices give the same numbers.
@_case(
    "StatelessRandomUniform",
    "StatelessRandomNormal",
    "StatelessTruncatedNormal",
    "StatelessRandomUniformInt",
    "StatelessMultinomial",
)
def _stateless() -> Build:
    seed = _const([3, 4], np.int64)
    return Build(
        [
            tf.random.stateless_uniform([3, 4], seed),
            tf.random.stateless_normal([5], seed),
            tf.random.stateless_truncated_normal([7], seed),
            tf.random.stateless_uniform([4], seed, minval=-5, maxval=5, dtype=tf.int32),
            tf.random.stateless_categorical(tf.zeros([2, 3]), 6, seed),
        ]
    )


# Seeded stateful draws are made on the host on either device: they agree exactly too.
@_case("Multinomial", "RandomGamma", "RandomGammaGrad", "RandomPoisson", "RandomPoissonV2")
def _samplers() -> Build:
    alpha = _const([1.0, 3.0])
    g = tf.random_gamma([4], alpha, seed=2)
    v1 = op_util.make_op(
        "RandomPoisson",
        [_const([3], np.int32), _const([2.0, 5.0])],
        {"seed": 1, "seed2": 2, "S": tf.int32, "dtype": tf.float32},
    ).outputs[0]
    return Build(
        [
            tf.multinomial(tf.zeros([2, 3]), 5, seed=1),
            g,
            _grad(g, alpha),
            tf.random_poisson([2.0, 5.0], [3], seed=3),
            v1,
        ]
    )


__all__: list[str] = []
