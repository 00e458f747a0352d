"""GPU comparison cases (see gpu_op_cases.py) of the NCCL ops with GPU kernels (NcclReduce,
NcclBroadcast) and of the CudnnRNN family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf
from tfcluster.ops import cudnn_rnn_ops, nccl_ops, op_util

from support.gpu_op_cases import CASES, Build


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _f32(*shape: int, seed: int = 3) -> Any:
    return tf.constant(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))


@_case("NcclReduce", "NcclBroadcast")
def _nccl() -> Build:
    a, b = _f32(3, 2, seed=4), _f32(3, 2, seed=5)
    reduced = op_util.make_op(
        "NcclReduce", [a, b], {"reduction": "prod", "T": tf.float32, "num_devices": 2}
    ).outputs[0]
    sent = nccl_ops.nccl_broadcast(a, [3, 2])
    return Build([reduced, sent])


_CUDNN_OPS = (
    "CudnnRNN",
    "CudnnRNNV2",
    "CudnnRNNV3",
    "CudnnRNNBackprop",
    "CudnnRNNBackpropV2",
    "CudnnRNNBackpropV3",
    "CudnnRNNParamsSize",
    "CudnnRNNParamsToCanonical",
    "CudnnRNNParamsToCanonicalV2",
    "CudnnRNNCanonicalToParams",
    "CudnnRNNCanonicalToParamsV2",
)


@_case(*_CUDNN_OPS)
def _cudnn() -> Build:
    rng = np.random.default_rng(8)
    fetches: list[Any] = []
    for mode, direction, gates in (("lstm", "bidirectional", 4), ("gru", "unidirectional", 3)):
        dirs = 2 if direction == "bidirectional" else 1
        units, n_in = 3, 2
        weights, biases = [], []
        for layer in range(2):
            width = n_in if layer == 0 else units * dirs
            for _ in range(dirs):
                weights += [rng.uniform(-0.5, 0.5, (units, width)).astype(np.float32)] * gates
                weights += [rng.uniform(-0.5, 0.5, (units, units)).astype(np.float32)] * gates
                biases += [rng.uniform(-0.2, 0.2, units).astype(np.float32)] * (2 * gates)
        kw = {"rnn_mode": mode, "direction": direction}
        params = cudnn_rnn_ops.cudnn_rnn_canonical_to_params(2, units, n_in, weights, biases, **kw)
        params2 = cudnn_rnn_ops.cudnn_rnn_canonical_to_params_v2(
            2, units, n_in, weights, biases, **kw
        )
        x = _f32(4, 2, n_in, seed=9)
        h = _f32(2 * dirs, 2, units, seed=10)
        c = _f32(2 * dirs, 2, units, seed=11)
        outs = [
            (cudnn_rnn_ops.cudnn_rnn(x, h, c, params, **kw), params),
            (cudnn_rnn_ops.cudnn_rnnv2(x, h, c, params2, **kw), params2),
            (cudnn_rnn_ops.cudnn_rnnv3(x, h, c, params, [4, 2], **kw), params),
        ]
        for out, p in outs:
            loss = tf.reduce_sum(out[0] * out[0]) + tf.reduce_sum(out[1])
            fetches += [out[0], out[1], *tf.gradients(loss, [x, h, p])]
        fetches.append(
            cudnn_rnn_ops.cudnn_rnn_params_size(2, units, n_in, T=tf.float32, S=tf.int32, **kw)
        )
        w1, b1 = cudnn_rnn_ops.cudnn_rnn_params_to_canonical(
            2, units, n_in, params, len(weights), **kw
        )
        w2, b2 = cudnn_rnn_ops.cudnn_rnn_params_to_canonical_v2(
            2, units, n_in, params2, len(weights), len(biases), **kw
        )
        fetches += [w1[0], b1[-1], w2[-1], b2[0]]
    return Build(fetches)
