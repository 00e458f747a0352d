"""GPU comparison cases (see gpu_op_cases.py) of the array extras: BroadcastTo/BroadcastArgs,
IdentityN, GuaranteeConst, EnsureShape, ParallelConcat, Bitcast, SparseMatMul and
ExtractVolumePatches (with its gradient)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf

from support.gpu_op_cases import CASES, Build


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _vals(*shape: int, seed: int = 5) -> Any:
    rng = np.random.default_rng(seed)
    return tf.constant(rng.uniform(-2.0, 2.0, shape).astype(np.float32))


@_case("BroadcastTo", "BroadcastArgs")
def _broadcast() -> Build:
    x = _vals(3, 1)
    y = tf.broadcast_to(x, [2, 3, 4])
    shape = tf.broadcast_dynamic_shape(tf.shape(x), tf.constant([2, 1, 4]))
    (grad,) = tf.gradients(tf.reduce_sum(y * _vals(2, 3, 4, seed=6)), x)
    return Build([y, shape, grad, tf.broadcast_to(x, shape)])


@_case("IdentityN", "GuaranteeConst", "EnsureShape")
def _pass_through() -> Build:
    x = _vals(2, 3)
    a, b = tf.identity_n([x, x * 2.0])
    return Build([a, b, tf.guarantee_const(x), tf.ensure_shape(x, [None, 3])])


@_case("ParallelConcat")
def _parallel_stack() -> Build:
    return Build([tf.parallel_stack([_vals(2, 2), _vals(2, 2, seed=7), _vals(2, 2, seed=8)])])


@_case("Bitcast")
def _bitcast() -> Build:
    x = _vals(2, 3)
    as_bytes = tf.bitcast(x, tf.uint8)
    return Build([as_bytes, tf.bitcast(as_bytes, tf.float32), tf.bitcast(x, tf.int32)])


@_case("SparseMatMul")
def _sparse_matmul() -> Build:
    a, b = _vals(3, 4), _vals(5, 4, seed=9)
    y = tf.sparse_matmul(a, b, transpose_b=True, a_is_sparse=True)
    grads = tf.gradients(tf.reduce_sum(y * _vals(3, 5, seed=10)), [a, b])
    return Build([y, *grads])


@_case("ExtractVolumePatches")
def _volume_patches() -> Build:
    x = _vals(2, 4, 5, 3, 2)
    y = tf.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "SAME")
    (grad,) = tf.gradients(tf.reduce_sum(y * y), x)
    return Build([y, grad])
