"""The kernel bodies registered for GPUs run as GPU kernels here, without a GPU, on a strict
stand-in for cupy (tests/support/strict_cupy.py: only the names, parameters and array behaviour
that every recorded cupy release has, computing with numpy).

Each op's GPU test case (tests/support/gpu_op_cases.py) is built on /cpu:0 and on a stand-in
/device:GPU:0 of one session and the two results compared: the bodies call only what cupy
offers, read device inputs with xp and host inputs (TF's HostMemory positions) with numpy,
and compute on the "GPU" what they compute on the CPU. The same cases compare a real GPU with
the CPU in tests/gpu.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.gpu_op_cases import (
    GPU,
    check_gpu_errors_are_tf_errors,
    check_gpu_matches_cpu,
    gpu_ops,
)
from support.strict_cupy import DeviceArray, NotInCupy, StrictCupy
from tfcluster.kernels import gpu_backend
from tfcluster.runtime import gpu


@pytest.fixture
def strict_gpu(monkeypatch: pytest.MonkeyPatch) -> Iterator[StrictCupy]:
    """One GPU in this process, whose cupy is the strict stand-in."""
    if gpu.local_gpus():
        pytest.skip("this machine has a GPU: tests/gpu runs the kernels on it")
    cupy = StrictCupy()
    monkeypatch.setattr(gpu, "_gpus", [gpu.GpuInfo(0, "strict cupy stand-in", 1 << 30)])
    monkeypatch.setattr(gpu_backend.cp, "_module", cupy)
    yield cupy


# Ops whose float32 CPU values (or their inputs') come from TF 1.15's Eigen approximations of
# exp, log, sin, cos, tanh and the logistic or glibc's tanf (kernels/_eigen_math.py,
# _eigen_trig.py, _eigen_activations.py: small tensors, the fused RNN cells' gates), or Eigen's
# own algorithms; on a GPU they are the device's own functions, as on TF's GPUs: a few ulps
# apart.
_EIGEN_ROUNDED_ON_CPU = {
    "CumulativeLogsumexp",
    "Elu",
    "EluGrad",
    "EuclideanNorm",
    "Cos",
    "Exp",
    "Expm1",
    "Log1p",
    "LogSoftmax",
    "Selu",
    "SeluGrad",
    "Sin",
    "Softmax",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
    "Softplus",
    "SoftplusGrad",
    "Tan",
    "Tanh",
    "Sigmoid",
    "BlockLSTM",
    "BlockLSTMV2",
    "LSTMBlockCell",
    "GRUBlockCell",
    # (their inputs made by the ops above in the cases)
    "TanhGrad",
    "BlockLSTMGrad",
    "BlockLSTMGradV2",
    "LSTMBlockCellGrad",
    "GRUBlockCellGrad",
    # Eigen's SelfAdjointEigenSolver and JacobiSVD on CPU (kernels/_eigen_selfadjoint.py,
    # _eigen_jacobi_svd.py), the library's solvers on GPUs as in TF: a few ulps apart.
    "SelfAdjointEigV2",
    "Svd",
}
# Ops whose float CPU values take Eigen's scalar form (another order of the same products) on
# a tensor's last size % packet values, as TF 1.15's CPU kernels do; a GPU evaluates its own
# packets: an ulp apart there.
_EIGEN_TAIL_ON_CPU = {"SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}
# Complex products on CPU round each real product and sum as Eigen's complex packets do
# (kernels/math.py); a GPU multiplies its own way: an ulp apart (their case takes z * z).
_EIGEN_COMPLEX_ON_CPU = {"Complex", "Real", "Imag", "Angle"}
# Float32 products on CPU summed in MKL-DNN's sgemm order where OpenBLAS's differs
# (kernels/_mkldnn_sgemm.py: narrow and fused products); a GPU's cuBLAS sums its own way.
_MKLDNN_ORDER_ON_CPU = {"MatMul", "_FusedMatMul"}
# Float32 convolutions of few output channels on CPU summed in TF's sgemm order
# (kernels/conv.py), FusedBatchNorm's statistics in Eigen's row order with its rsqrt packets
# (kernels/normalization.py); a GPU's cuDNN sums its own way: an ulp or two apart.
_TF_CPU_ORDER_CONV = {
    "Conv2D",
    "Conv2DBackpropFilter",
    "Conv2DBackpropInput",
    "_FusedConv2DBackprop",
}
# (Its gradient divides small sums: a few ulps apart.)
_TF_CPU_ORDER_NORM = {f"FusedBatchNorm{g}{v}" for v in ("", "V2", "V3") for g in ("", "Grad")}
# Ops taking float32 square roots on CPU as Eigen's fast-math packets do (rsqrtps and a Newton
# step, kernels/_eigen_psqrt.py); a GPU takes correctly rounded ones: an ulp or two apart.
_EIGEN_ROOTS_ON_CPU = {
    f"{prefix}{op}"
    for prefix in ("", "Resource")
    for op in (
        "ApplyAdam",
        "ApplyAdagrad",
        "ApplyAdagradV2",
        "ApplyAdadelta",
        "ApplyRMSProp",
        "ApplyCenteredRMSProp",
        "ApplyProximalAdagrad",
        "ApplyFtrl",
        "ApplyFtrlV2",
    )
} | {"Sqrt", "Rsqrt"}
# The sparse updates take them row by row (packets, then the row's tail), FTRL's other powers
# with glibc's powf.
_EIGEN_ROOTS_ON_CPU |= {
    f"{prefix}SparseApply{op}"
    for prefix in ("", "Resource")
    for op in (
        "Adagrad",
        "AdagradV2",
        "Adadelta",
        "RMSProp",
        "CenteredRMSProp",
        "ProximalAdagrad",
        "AdagradDA",
        "Ftrl",
        "FtrlV2",
    )
}
# float32 Pow on CPU is glibc's powf, as TF 1.15's kernel calls it (kernels/_libm_float.py); a
# GPU takes its own pow: an ulp apart.
_GLIBC_ON_CPU = {"Pow"}
# float32 L2Loss on CPU sums its squares in Eigen's reduction order (kernels/_eigen_sum.py); a
# GPU reduces its own way: an ulp apart.
_EIGEN_SUM_ON_CPU = {"L2Loss"}
# float32 LRN on CPU adds each window's squares channel after channel and raises to beta with
# Eigen's packet log/exp or fast rsqrt (kernels/_eigen_lrn.py); a GPU takes its own: an ulp apart.
_EIGEN_LRN_ON_CPU = {"LRN", "LRNGrad"}
# Sparse-segment sums on CPU in TF 1.15's kernel order and in float32 (a head of rows, then
# eights; kernels/segment_reduction.py); a GPU accumulates in float64: an ulp apart.
_SEGMENT_ORDER_ON_CPU = {
    f"SparseSegment{kind}{suffix}"
    for kind in ("Sum", "Mean", "SqrtN")
    for suffix in ("", "WithNumSegments")
} | {"SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"}  # (their cases fetch the forward too)


def _exact(dtype: np.dtype[Any]) -> tuple[float, float]:
    # The stand-in computes with numpy: the "GPU" must give the CPU's values to the bit.
    return (0.0, 0.0)


def _ulps(dtype: np.dtype[Any]) -> tuple[float, float]:
    # atol: a few ulps of values near 1 (a softmax's p - label where p ~ 1).
    return (1e-6, 3e-7) if dtype == np.float32 else (0.0, 0.0)


def _several_ulps(dtype: np.dtype[Any]) -> tuple[float, float]:
    return (4e-6, 1e-6) if dtype == np.float32 else (0.0, 0.0)


@pytest.mark.parametrize("op", gpu_ops())
def test_gpu_kernel_body_runs_on_strict_cupy_and_matches_cpu(op: str, strict_gpu: Any) -> None:
    tolerant = (
        op
        in _EIGEN_ROUNDED_ON_CPU
        | _EIGEN_TAIL_ON_CPU
        | _EIGEN_ROOTS_ON_CPU
        | _EIGEN_COMPLEX_ON_CPU
        | _MKLDNN_ORDER_ON_CPU
        | _TF_CPU_ORDER_CONV
        | _GLIBC_ON_CPU
        | _EIGEN_SUM_ON_CPU
        | _EIGEN_LRN_ON_CPU
        | _SEGMENT_ORDER_ON_CPU
    )
    if op in _TF_CPU_ORDER_NORM:
        check_gpu_matches_cpu(op, _several_ulps)
        return
    check_gpu_matches_cpu(op, _ulps if tolerant else _exact)


def test_gpu_kernel_errors_on_strict_cupy_are_tf_errors(strict_gpu: Any) -> None:
    check_gpu_errors_are_tf_errors()


def test_a_chain_of_gpu_kernels_runs_on_the_stand_in_gpu(strict_gpu: Any) -> None:
    with tf.device(GPU):
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = tf.nn.relu(tf.matmul(x, x, transpose_b=True) - 20.0)
    meta = tf.RunMetadata()
    # Constant folding off: it would compute the constant expression before the step.
    no_folding = tf.ConfigProto(
        graph_options=tf.GraphOptions(
            optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
        )
    )
    with tf.Session(config=no_folding) as sess:
        out = sess.run(
            y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta
        )
    ran = {n.node_name for d in meta.step_stats.dev_stats if d.device == GPU for n in d.node_stats}
    assert {"MatMul", "sub", "Relu"} <= ran
    np.testing.assert_array_equal(out, [[0.0, 0.0], [0.0, 30.0]])  # relu(x @ x.T - 20)


# ---- the stand-in is as strict as cupy ------------------------------------------------------
def test_stand_in_refuses_names_and_parameters_cupy_lacks() -> None:
    cupy = StrictCupy()
    a = cupy.asarray(np.arange(4.0))
    with pytest.raises(NotInCupy, match=r"cupy\.errstate"):
        _ = cupy.errstate
    with pytest.raises(NotInCupy, match=r"cupy\.max"):
        cupy.max(a, initial=0.0)  # numpy's max has `initial`, cupy's has not
    with pytest.raises(NotInCupy, match=r"lib\.stride_tricks\.as_strided"):
        cupy.lib.stride_tricks.as_strided(a, shape=(2,), strides=(8,), writeable=False)
    with pytest.raises(NotInCupy, match="where"):
        cupy.add(a, a, where=a > 1)
    with pytest.raises(NotInCupy, match=r"multiply\.at"):
        cupy.multiply.at(a, cupy.asarray(np.array([0, 0])), 2.0)
    with pytest.raises(NotInCupy, match=r"cupy\.linalg\.eig\b"):
        _ = cupy.linalg.eig  # cupy 14 has it, cupy 13 has not
    with pytest.raises(NotInCupy, match=r"cupy\.linalg\.svd"):
        cupy.linalg.svd(a.reshape(2, 2), hermitian=True)  # numpy's svd has `hermitian`


def test_stand_in_scatters_only_the_dtypes_cupy_scatters() -> None:
    cupy = StrictCupy()
    rows = cupy.asarray(np.array([0, 0]))
    with pytest.raises(TypeError, match=r"cupy\.add\.at only supports"):
        cupy.add.at(cupy.zeros(2, dtype=np.int64), rows, 1)  # no 64-bit integer atomics
    with pytest.raises(TypeError, match=r"cupy\.maximum\.at only supports"):
        cupy.maximum.at(cupy.zeros(2, dtype=np.float16), rows, 1.0)
    with pytest.raises(TypeError, match=r"cupy\.subtract\.at only supports"):
        cupy.subtract.at(cupy.zeros(2, dtype=np.float32), rows, 1.0)
    out = cupy.zeros(2, dtype=np.uint64)
    cupy.add.at(out, rows, cupy.asarray(np.array([3, 4], np.uint64)))
    np.testing.assert_array_equal(out.get(), [7, 0])


def test_stand_in_arrays_refuse_numpy_as_cupy_arrays_do() -> None:
    cupy = StrictCupy()
    a = cupy.asarray(np.arange(4.0))
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(a)
    with pytest.raises(TypeError):
        np.add(a, 1.0)
    with pytest.raises(TypeError, match="Unsupported type"):
        cupy.add(a, np.ones(4))  # host arrays go through xp.asarray first
    with pytest.raises(TypeError, match="Unsupported type"):
        _ = a + np.ones(4)
    with pytest.raises(NotInCupy, match="writeable"):
        a.flags.writeable = False
    with pytest.raises(TypeError):
        range(cupy.sum(cupy.asarray(np.array([1, 2]))))  # no __index__ on cupy arrays


def test_stand_in_gives_device_values_as_cupy_does() -> None:
    cupy = StrictCupy()
    a = cupy.asarray(np.arange(6.0).reshape(2, 3))
    total = cupy.sum(a)
    assert isinstance(total, DeviceArray) and total.ndim == 0  # not a numpy scalar
    assert float(total) == 15.0 and isinstance(a[1, 2], DeviceArray)
    assert cupy.asarray(a) is a
    out = cupy.zeros(3)
    cupy.add.at(out, cupy.asarray(np.array([0, 0, 2])), 1.0)
    np.testing.assert_array_equal(out.get(), [2.0, 0.0, 1.0])
    b = cupy.asarray(np.ones(3))
    b += 1
    np.testing.assert_array_equal(b.get(), [2.0, 2.0, 2.0])
    m = cupy.asarray(np.array([[2.0, 0.0], [0.0, 4.0]]))
    inv = cupy.linalg.inv(m)
    assert isinstance(inv, DeviceArray)
    np.testing.assert_array_equal(inv.get(), [[0.5, 0.0], [0.0, 0.25]])
    assert cupy.linalg.LinAlgError is np.linalg.LinAlgError  # cupy raises numpy's
    with pytest.raises(TypeError, match="Unsupported type"):
        cupy.linalg.solve(m, np.ones(2))  # host arrays go through xp.asarray first
