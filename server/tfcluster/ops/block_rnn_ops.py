"""The fused RNN cell ops TF 1.15 registers in core (tensorflow/core/ops/rnn_ops.cc):
LSTMBlockCell, BlockLSTM, BlockLSTMV2, GRUBlockCell and their gradient ops, with TF's shape
functions. TF's Python builds them only through tf.raw_ops (and tf.contrib.rnn's cells)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import check_dtype, shape_list, with_rank
from tfcluster.ops.op_util import Outputs, make_op

_LSTM_TYPES = (dtypes.float16, dtypes.float32)
_GRU_TYPES = (dtypes.float32,)


def _dims(t: Tensor, rank: int, what: str) -> list[int | None]:
    dims = shape_list(with_rank(t.shape, rank, what))
    return list(dims) if dims is not None else [None] * rank


def _same_type(inputs: Sequence[Tensor], op_type: str, allowed: Sequence[dtypes.DType]) -> Any:
    dtype = inputs[0].dtype.base_dtype
    check_dtype(inputs[0], allowed, op_type, "T")
    for t in inputs[1:]:
        if t.dtype.base_dtype != dtype:
            raise TypeError(
                f"Input {t.name} of {op_type} has type {t.dtype.base_dtype.name} that does not "
                f"match type {dtype.name} of the op's other inputs"
            )
    return dtype


def _lstm_cell_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = _same_type(inputs, "LSTMBlockCell", _LSTM_TYPES)
    batch = _dims(inputs[0], 2, "x")[0]
    cell = _dims(inputs[1], 2, "cs_prev")[1]
    return [(dtype, TensorShape([batch, cell]))] * 7


def _lstm_cell_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = _same_type(inputs, "LSTMBlockCellGrad", _LSTM_TYPES)
    batch = _dims(inputs[0], 2, "x")[0]
    cell = _dims(inputs[1], 2, "cs_prev")[1]
    for i, what in ((2, "h_prev"), (3, "w")):
        _dims(inputs[i], 2, what)
    peep = [TensorShape(_dims(inputs[i], 1, w)) for i, w in ((4, "wci"), (5, "wcf"), (6, "wco"))]
    _dims(inputs[7], 1, "b")
    for i in range(8, 16):
        _dims(inputs[i], 2, "cell state or gradient")
    gates = None if cell is None else 4 * cell
    return [
        (dtype, TensorShape([batch, cell])),
        (dtype, TensorShape([batch, gates])),
        *[(dtype, s) for s in peep],
    ]


def _block_lstm_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = _same_type(inputs[1:], "BlockLSTM", _LSTM_TYPES)
    timelen, batch, _ = _dims(inputs[1], 3, "x")
    gates = _dims(inputs[8], 1, "b")[0]
    cell = None if gates is None else gates // 4
    return [(dtype, TensorShape([timelen, batch, cell]))] * 7


def _block_lstm_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = _same_type(inputs[1:], "BlockLSTMGrad", _LSTM_TYPES)
    x = TensorShape(_dims(inputs[1], 3, "x"))
    cs_prev = TensorShape(_dims(inputs[2], 2, "cs_prev"))
    h_prev = TensorShape(_dims(inputs[3], 2, "h_prev"))
    w = TensorShape(_dims(inputs[4], 2, "w"))
    peep = [TensorShape(_dims(inputs[i], 1, n)) for i, n in ((5, "wci"), (6, "wcf"), (7, "wco"))]
    b = TensorShape(_dims(inputs[8], 1, "b"))
    for i in range(9, 18):
        _dims(inputs[i], 3, "cell state or gradient")
    return [(dtype, s) for s in (x, cs_prev, h_prev, w, *peep, b)]


def _gru_cell_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = _same_type(inputs, "GRUBlockCell", _GRU_TYPES)
    batch = _dims(inputs[0], 2, "x")[0]
    cell = _dims(inputs[1], 2, "h_prev")[1]
    return [(dtype, TensorShape([batch, cell]))] * 4


def _gru_cell_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = _same_type(inputs, "GRUBlockCellGrad", _GRU_TYPES)
    x = _dims(inputs[0], 2, "x")
    h_prev = _dims(inputs[1], 2, "h_prev")
    for i, what in ((2, "w_ru"), (3, "w_c")):
        _dims(inputs[i], 2, what)
    for i, what in ((4, "b_ru"), (5, "b_c")):
        _dims(inputs[i], 1, what)
    for i in range(6, 10):
        _dims(inputs[i], 2, "r, u, c or d_h")
    batch, cell = x[0], h_prev[1]
    return [
        (dtype, TensorShape(x)),
        (dtype, TensorShape(h_prev)),
        (dtype, TensorShape([batch, cell])),
        (dtype, TensorShape([batch, None if cell is None else 2 * cell])),
    ]


op_def_registry.register("LSTMBlockCell", _lstm_cell_infer)
op_def_registry.register("LSTMBlockCellGrad", _lstm_cell_grad_infer)
op_def_registry.register("BlockLSTM", _block_lstm_infer)
op_def_registry.register("BlockLSTMV2", _block_lstm_infer)
op_def_registry.register("BlockLSTMGrad", _block_lstm_grad_infer)
op_def_registry.register("BlockLSTMGradV2", _block_lstm_grad_infer)
op_def_registry.register("GRUBlockCell", _gru_cell_infer)
op_def_registry.register("GRUBlockCellGrad", _gru_cell_grad_infer)


def lstm_block_cell_grad(
    x: Tensor,
    cs_prev: Tensor,
    h_prev: Tensor,
    w: Tensor,
    wci: Tensor,
    wcf: Tensor,
    wco: Tensor,
    b: Tensor,
    outputs: Sequence[Tensor],
    cs_grad: Tensor,
    h_grad: Tensor,
    use_peephole: bool,
    name: str | None = None,
) -> list[Tensor]:
    """(cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad) from the cell's outputs
    (i, cs, f, o, ci, co)."""
    inputs = [x, cs_prev, h_prev, w, wci, wcf, wco, b, *outputs[:6], cs_grad, h_grad]
    with name_scope(name, "LSTMBlockCellGrad", inputs) as scope:
        attrs = {"use_peephole": bool(use_peephole), "T": x.dtype.base_dtype}
        return list(make_op("LSTMBlockCellGrad", inputs, attrs, name=scope).outputs)


def block_lstm_grad(
    op_type: str,
    inputs: Sequence[Tensor],
    outputs: Sequence[Tensor],
    cs_grad: Tensor,
    h_grad: Tensor,
    use_peephole: bool,
    name: str | None = None,
) -> list[Tensor]:
    """BlockLSTMGrad(V2): the gradients of the 8 inputs after seq_len_max."""
    args = [*inputs, *outputs, cs_grad, h_grad]
    with name_scope(name, op_type, args) as scope:
        attrs = {"use_peephole": bool(use_peephole), "T": inputs[1].dtype.base_dtype}
        return list(make_op(op_type, args, attrs, name=scope).outputs)


def gru_block_cell_grad(
    inputs: Sequence[Tensor], outputs: Sequence[Tensor], d_h: Tensor, name: str | None = None
) -> list[Tensor]:
    """(d_x, d_h_prev, d_c_bar, d_r_bar_u_bar) from the cell's inputs and r, u, c."""
    args = [*inputs, *outputs[:3], d_h]
    with name_scope(name, "GRUBlockCellGrad", args) as scope:
        attrs = {"T": inputs[0].dtype.base_dtype}
        return list(make_op("GRUBlockCellGrad", args, attrs, name=scope).outputs)
