"""Gradients of the fused RNN cells. BlockLSTM and BlockLSTMV2 as TF 1.15's rnn_grad (both
through BlockLSTMGrad, as TF 1.15 registers them); LSTMBlockCell and GRUBlockCell as
tf.contrib.rnn registers them in TF 1.15 (through LSTMBlockCellGrad / GRUBlockCellGrad, then
the weights' products in the graph)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.graph import Operation
from tfcluster.gradients.registry import RegisterGradient
from tfcluster.ops import array_ops, block_rnn_ops, math_ops, nn_ops


def _block_lstm_grad(op: Operation, *grads: Any) -> Any:
    inputs = list(op.inputs)
    outputs = list(op.outputs)
    grads_in = block_rnn_ops.block_lstm_grad(
        "BlockLSTMGrad",
        inputs,
        outputs,
        grads[1],
        grads[6],
        use_peephole=op._get_attr("use_peephole"),
    )
    return [None, *grads_in]


RegisterGradient("BlockLSTM")(_block_lstm_grad)
RegisterGradient("BlockLSTMV2")(_block_lstm_grad)


@RegisterGradient("LSTMBlockCell")
def _lstm_block_cell_grad(op: Operation, *grads: Any) -> Any:
    x, cs_prev, h_prev, w, wci, wcf, wco, b = op.inputs
    input_size = x.shape.with_rank(2).as_list()[1]
    if input_size is None:
        raise ValueError("input_size from `x` should not be None.")
    cell_size = cs_prev.shape.with_rank(2).as_list()[1]
    if cell_size is None:
        raise ValueError("cell_size from `cs_prev` should not be None.")
    batch = x.shape.as_list()[0]
    batch_size = -1 if batch is None else batch
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = block_rnn_ops.lstm_block_cell_grad(
        x,
        cs_prev,
        h_prev,
        w,
        wci,
        wcf,
        wco,
        b,
        list(op.outputs),
        grads[1],
        grads[6],
        use_peephole=op._get_attr("use_peephole"),
    )
    xh_grad = math_ops.matmul(dicfo, w, transpose_b=True)
    x_grad = array_ops.slice(xh_grad, (0, 0), (batch_size, input_size))
    h_prev_grad = array_ops.slice(xh_grad, (0, input_size), (batch_size, cell_size))
    xh = array_ops.concat([x, h_prev], 1)
    w_grad = math_ops.matmul(xh, dicfo, transpose_a=True)
    b_grad = nn_ops.bias_add_grad(dicfo)
    return [x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad]


@RegisterGradient("GRUBlockCell")
def _gru_block_cell_grad(op: Operation, *grads: Any) -> Any:
    x, h_prev = op.inputs[0], op.inputs[1]
    r = op.outputs[0]
    d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = block_rnn_ops.gru_block_cell_grad(
        list(op.inputs), list(op.outputs), grads[3]
    )
    x_h_prev = array_ops.concat([x, h_prev], 1)
    d_w_ru = math_ops.matmul(x_h_prev, d_r_bar_u_bar, transpose_a=True)
    d_b_ru = nn_ops.bias_add_grad(d_r_bar_u_bar)
    x_h_prevr = array_ops.concat([x, h_prev * r], 1)
    d_w_c = math_ops.matmul(x_h_prevr, d_c_bar, transpose_a=True)
    d_b_c = nn_ops.bias_add_grad(d_c_bar)
    return [d_x, d_h_prev, d_w_ru, d_w_c, d_b_ru, d_b_c]
