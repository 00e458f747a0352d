"""GPU comparison cases (see gpu_op_cases.py) of TF 1.15's older op types (ops/legacy_ops.py)
and ScaleAndTranslate; those TF 1.15 no longer builds (TopK, the Batch* names, ...) have CPU
kernels only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf

from support.gpu_op_cases import CASES, Build

r = tf.raw_ops


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _vals(*shape: int, low: float = -2.0, high: float = 2.0, seed: int = 5) -> Any:
    return tf.constant(np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32))


@_case("BatchMatMulV2")
def _batch_matmul_v2() -> Build:
    a, b = _vals(2, 1, 3, 4), _vals(5, 4, 2, seed=6)
    return Build(
        [r.BatchMatMulV2(x=a, y=b), r.BatchMatMulV2(x=a, y=_vals(3, 2, seed=3), adj_x=True)]
    )


@_case("Concat", "Gather", "Reverse", "ConjugateTranspose")
def _array_layouts() -> Build:
    a = _vals(2, 3, 4)
    c = tf.complex(a, a * 2.0)
    return Build(
        [
            r.Concat(concat_dim=1, values=[a, a * 2.0]),
            r.Gather(params=a, indices=[[1, 0], [1, 1]]),
            r.Reverse(tensor=a, dims=[True, False, True]),
            r.ConjugateTranspose(x=c, perm=[2, 0, 1]),
        ]
    )


@_case("Inv", "InvGrad", "Mod", "ClipByValue", "ApproximateEqual")
def _elementwise() -> Build:
    x = _vals(3, 4, low=0.5, high=2.0)
    y = _vals(3, 4, seed=9)
    ints = tf.constant(np.array([7, -7, 9, -9], np.int32))
    return Build(
        [
            r.Inv(x=x),
            r.InvGrad(y=x, dy=y),
            r.Mod(x=y * 5.0, y=x),
            r.Mod(x=ints, y=tf.constant(np.array([3, 3, -4, -4], np.int32))),
            r.ClipByValue(t=y, clip_value_min=-0.5, clip_value_max=0.75),
            r.ApproximateEqual(x=x, y=x + y * 0.01, tolerance=0.01),
        ]
    )


@_case("CompareAndBitpack", "PopulationCount", "NthElement", "DataFormatDimMap")
def _bits_and_order() -> Build:
    x = _vals(3, 16)
    return Build(
        [
            r.CompareAndBitpack(input=x, threshold=0.1),
            r.PopulationCount(x=tf.constant(np.array([[7, -1], [255, 1024]], np.int32))),
            r.NthElement(input=x, n=3),
            r.NthElement(input=x, n=0, reverse=True),
            r.DataFormatDimMap(x=tf.constant(np.array([0, 1, 2, 3, -1], np.int32))),
        ]
    )


@_case("DataFormatVecPermute", "Snapshot", "DeepCopy", "DebugGradientIdentity", "Empty")
def _copies() -> Build:
    x = _vals(2, 3)
    return Build(
        [
            r.DataFormatVecPermute(x=tf.constant(np.array([1, 2, 3, 4], np.int32))),
            r.Snapshot(input=x),
            r.DeepCopy(x=x),
            r.DebugGradientIdentity(input=x),
            r.Empty(shape=[2, 3], dtype=tf.float32, init=True),
        ]
    )


@_case("InplaceAdd", "InplaceSub", "InplaceUpdate", "TensorStridedSliceUpdate")
def _updates_of_tensors() -> Build:
    x, v = _vals(4, 3), _vals(2, 3, seed=8)
    return Build(
        [
            r.InplaceAdd(x=x, i=[1, 1], v=v),
            r.InplaceSub(x=x + 1.0, i=[3, 0], v=v),
            r.InplaceUpdate(x=x * 2.0, i=[2, 0], v=v),
            r.TensorStridedSliceUpdate(input=x, begin=[0, 0], end=[4, 3], strides=[2, 1], value=v),
        ]
    )


@_case(
    "ScatterNdNonAliasingAdd", "SparseDenseCwiseAdd", "SparseDenseCwiseMul", "SparseDenseCwiseDiv"
)
def _scatter_and_sparse() -> Build:
    x = _vals(4, 3)
    idx = np.array([[0, 1], [2, 2], [3, 0]], np.int64)
    vals = _vals(3, seed=2)
    shape = np.array([4, 3], np.int64)
    dense = _vals(3, low=0.5, high=1.5, seed=4)
    return Build(
        [
            r.ScatterNdNonAliasingAdd(input=x, indices=[[1], [3], [1]], updates=_vals(3, 3)),
            r.SparseDenseCwiseAdd(sp_indices=idx, sp_values=vals, sp_shape=shape, dense=dense),
            r.SparseDenseCwiseMul(sp_indices=idx, sp_values=vals, sp_shape=shape, dense=dense),
            r.SparseDenseCwiseDiv(sp_indices=idx, sp_values=vals, sp_shape=shape, dense=dense),
        ]
    )


@_case("BiasAddV1", "MaxPoolV2", "MaxPoolGradV2", "MaxPoolGradGradV2")
def _nn() -> Build:
    x = _vals(2, 5, 6, 3)
    y = r.MaxPoolV2(input=x, ksize=[1, 2, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    g = _vals(2, 3, 3, 3, seed=3)
    window = {"ksize": [1, 2, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    return Build(
        [
            r.BiasAddV1(value=x, bias=_vals(3, seed=1)),
            y,
            r.MaxPoolGradV2(orig_input=x, orig_output=y, grad=g, **window),
            r.MaxPoolGradGradV2(orig_input=x, orig_output=y, grad=x * 0.5, **window),
        ]
    )


@_case("CholeskyGrad")
def _cholesky_grad() -> Build:
    a = np.random.default_rng(3).uniform(-1, 1, (2, 3, 3))
    spd = a @ a.transpose(0, 2, 1) + 3 * np.eye(3)
    chol = tf.constant(np.linalg.cholesky(spd))
    return Build([r.CholeskyGrad(l=chol, grad=tf.constant(a))])


@_case("ScaleAndTranslate", "ScaleAndTranslateGrad")
def _scale_and_translate() -> Build:
    x = _vals(2, 4, 5, 3)
    y = r.ScaleAndTranslate(
        images=x, size=[6, 3], scale=[1.5, 0.6], translation=[0.0, 0.25], kernel_type="keyscubic"
    )
    g = r.ScaleAndTranslateGrad(
        grads=_vals(2, 6, 3, 3, seed=2),
        original_image=x,
        scale=[1.5, 0.6],
        translation=[0.0, 0.25],
        kernel_type="keyscubic",
    )
    return Build([y, g])


@_case("Variable", "RefIdentity", "DebugGradientRefIdentity", "RefSelect", "StridedSliceAssign")
def _references() -> Build:
    v = r.Variable(shape=[2, 3], dtype=tf.float32, name="old_style")
    w = tf.Variable(tf.ones([2, 3]), name="w")
    init = tf.assign(v, tf.reshape(tf.range(6.0), [2, 3]))
    picked = r.RefSelect(index=1, inputs=[v, w])
    sliced = r.StridedSliceAssign(
        ref=r.RefIdentity(input=v), begin=[0, 1], end=[2, 3], strides=[1, 2], value=[[9.0], [8.0]]
    )
    return Build(
        [tf.identity(v), r.DebugGradientRefIdentity(input=w), tf.identity(picked)],
        before=[[init, w.initializer], [sliced]],
    )
