"""GPU comparison cases (see gpu_op_cases.py) of the fused RNN cells (LSTMBlockCell, BlockLSTM
and BlockLSTMV2, GRUBlockCell, and their gradient ops) and of QuantizeAndDequantize V1 / V3,
whose kernels are written once over xp."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf
from tfcluster.ops import op_util

from support.gpu_op_cases import CASES, Build


def _case(*ops: str) -> Callable[[Callable[[], Build]], Callable[[], Build]]:
    def deco(fn: Callable[[], Build]) -> Callable[[], Build]:
        for op in ops:
            CASES[op] = fn
        return fn

    return deco


def _vals(shape: tuple[int, ...], seed: int, scale: float = 1.0) -> Any:
    rng = np.random.default_rng(seed)
    return tf.constant((rng.uniform(-1.0, 1.0, shape) * scale).astype(np.float32))


def _lstm_args(batch: int, size: int, cell: int, seed: int, steps: int = 0) -> dict[str, Any]:
    x_shape = (steps, batch, size) if steps else (batch, size)
    return {
        "x": _vals(x_shape, seed),
        "cs_prev": _vals((batch, cell), seed + 1, 2.0),
        "h_prev": _vals((batch, cell), seed + 2),
        "w": _vals((size + cell, 4 * cell), seed + 3, 0.8),
        "wci": _vals((cell,), seed + 4, 0.5),
        "wcf": _vals((cell,), seed + 5, 0.5),
        "wco": _vals((cell,), seed + 6, 0.5),
        "b": _vals((4 * cell,), seed + 7, 0.5),
    }


@_case("LSTMBlockCell", "LSTMBlockCellGrad")
def _lstm_cell() -> Build:
    args = _lstm_args(3, 4, 5, 60)
    outs = tf.raw_ops.LSTMBlockCell(use_peephole=True, cell_clip=1.5, **args)
    grads = tf.gradients(
        [outs.cs, outs.h], [args["x"], args["cs_prev"], args["w"], args["wci"], args["b"]]
    )
    return Build([*outs, *grads])


@_case("BlockLSTM", "BlockLSTMGrad", "BlockLSTMV2", "BlockLSTMGradV2")
def _block_lstm() -> Build:
    args = _lstm_args(2, 3, 4, 70, steps=5)
    seq = np.int64(4)
    v1 = tf.raw_ops.BlockLSTM(seq_len_max=seq, use_peephole=True, **args)
    v2 = tf.raw_ops.BlockLSTMV2(seq_len_max=seq, cell_clip=1.0, **args)
    grads = tf.gradients([v1.h, v2.h], [args["x"], args["w"], args["wco"], args["b"]])
    names = ("i", "cs", "f", "o", "ci", "co", "h")
    dh = _vals((5, 2, 4), 80)
    grad_v2 = tf.raw_ops.BlockLSTMGradV2(
        seq_len_max=seq,
        cs_grad=dh * 0.5,
        h_grad=dh,
        use_peephole=False,
        **dict(zip(names, v2)),
        **args,
    )
    # Only the first seq_len_max steps of the outputs are defined.
    return Build([*(t[:4] for t in v1), *(t[:4] for t in v2), *grads, *grad_v2])


@_case("GRUBlockCell", "GRUBlockCellGrad")
def _gru_cell() -> Build:
    args = {
        "x": _vals((3, 4), 90),
        "h_prev": _vals((3, 5), 91),
        "w_ru": _vals((9, 10), 92, 0.8),
        "w_c": _vals((9, 5), 93, 0.8),
        "b_ru": _vals((10,), 94, 0.5),
        "b_c": _vals((5,), 95, 0.5),
    }
    outs = tf.raw_ops.GRUBlockCell(**args)
    grads = tf.gradients(outs.h, list(args.values()))
    return Build([*outs, *grads])


@_case("QuantizeAndDequantize", "QuantizeAndDequantizeV3")
def _quantize_and_dequantize() -> Build:
    x = _vals((4, 6), 100, 4.0)
    # TF 1.15 refuses to build the first op (removed from GraphDef 22): made as an old graph has it.
    v1 = op_util.make_op(
        "QuantizeAndDequantize",
        [x],
        {
            "T": tf.float32,
            "signed_input": True,
            "num_bits": 5,
            "range_given": False,
            "input_min": 0.0,
            "input_max": 0.0,
        },
    ).outputs[0]
    v3 = tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=-2.5, input_max=3.0, num_bits=6)
    return Build([v1, v3])
