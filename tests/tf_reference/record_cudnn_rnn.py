"""Records what TF 1.15 computes for the CudnnRNN cases (cudnn_rnn_cases.py) through its CPU
RNN cells: tf.nn.rnn_cell.LSTMCell(forget_bias=0), contrib's CudnnCompatibleGRUCell and
BasicRNNCell(relu/tanh), their variables set to the canonical weights as TF's
CudnnParamsFormatConverter converts them (LSTM kernel = transpose of the gates' [W|R] stacked
in TF's i, c, f, o order, bias = bW + bR; GRU gates/kernel from r, z, candidate kernels
from h), run with tf.nn.dynamic_rnn / bidirectional_dynamic_rnn layer by layer. Gradients
with respect to the cells' variables are mapped back to the canonical weights (the inverse of
that linear conversion). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_cudnn_rnn.py
"""

import numpy as np
import tensorflow as tf
from cudnn_rnn_cases import CASES, GATES, canonical, loss_weights
from recorder import Recorder
from tensorflow.contrib.cudnn_rnn.python.ops.cudnn_rnn_ops import CudnnCompatibleGRUCell

if not tf.__version__.startswith("1."):
    raise SystemExit("record_cudnn_rnn.py records TensorFlow 1.15")


def _cell(mode, units):
    if mode == "lstm":
        return tf.nn.rnn_cell.LSTMCell(units, forget_bias=0.0)
    if mode == "gru":
        return CudnnCompatibleGRUCell(units)
    act = tf.nn.relu if mode == "rnn_relu" else tf.tanh
    return tf.nn.rnn_cell.BasicRNNCell(units, activation=act)


def _tf_values(mode, ws, bs):
    """The cell's variable values (in creation order) from one layer-direction's canonical
    weights ws (W gates then R gates) and biases bs."""
    g = GATES[mode]
    W, R, bW, bR = ws[:g], ws[g:], bs[:g], bs[g:]
    stacked = [np.concatenate([W[i], R[i]], axis=1) for i in range(g)]
    if mode == "lstm":
        order = [0, 2, 1, 3]  # cuDNN i, f, c, o -> TF i, c, f, o
        kernel = np.concatenate([stacked[i] for i in order], axis=0).T
        bias = np.concatenate([bW[i] + bR[i] for i in order])
        return [kernel, bias]
    if mode == "gru":
        gates_kernel = np.concatenate([stacked[0], stacked[1]], axis=0).T
        gates_bias = np.concatenate([bW[0] + bR[0], bW[1] + bR[1]])
        return [gates_kernel, gates_bias, W[2].T, R[2].T, bW[2], bR[2]]
    return [stacked[0].T, bW[0] + bR[0]]


def _canonical_grads(mode, width, grads):
    """Gradients w.r.t. the cell's variables -> w.r.t. the canonical weights and biases."""
    if mode == "lstm":
        dk, db = grads
        units = db.shape[0] // 4
        blocks = [dk[:, i * units : (i + 1) * units].T for i in range(4)]
        bblocks = [db[i * units : (i + 1) * units] for i in range(4)]
        tf_to_cu = [0, 2, 1, 3]
        stacked = [blocks[tf_to_cu[i]] for i in range(4)]
        bias = [bblocks[tf_to_cu[i]] for i in range(4)]
    elif mode == "gru":
        dgk, dgb, dck_in, dck_h, dcb_in, dcb_h = grads
        units = dcb_in.shape[0]
        stacked = [dgk[:, :units].T, dgk[:, units:].T]
        bias = [dgb[:units], dgb[units:]]
        ws = [stacked[0][:, :width], stacked[1][:, :width], dck_in.T]
        ws += [stacked[0][:, width:], stacked[1][:, width:], dck_h.T]
        return ws, [*bias, dcb_in, *bias, dcb_h]
    else:
        dk, db = grads
        stacked, bias = [dk.T], [db]
    ws = [s[:, :width] for s in stacked] + [s[:, width:] for s in stacked]
    return ws, bias + bias


def record(name):
    mode, direction, layers, t, b, n_in, units, lengths = CASES[name]
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[mode]
    weights, biases, x_np, h0_np, c0_np = canonical(name)
    x = tf.constant(x_np)
    h0 = tf.constant(h0_np)
    c0 = tf.constant(c0_np)
    seq = None if lengths is None else tf.constant(lengths, tf.int32)
    cells, finals_h, finals_c = [], [], []
    layer_in = x
    for layer in range(layers):
        outs = []
        made = []
        for d in range(dirs):
            k = layer * dirs + d
            with tf.variable_scope(f"l{layer}_d{d}"):
                cell = _cell(mode, units)
            state = tf.nn.rnn_cell.LSTMStateTuple(c0[k], h0[k]) if mode == "lstm" else h0[k]
            made.append((cell, state, k))
        if dirs == 1:
            cell, state, k = made[0]
            with tf.variable_scope(f"l{layer}"):
                out, final = tf.nn.dynamic_rnn(
                    cell, layer_in, sequence_length=seq, initial_state=state, time_major=True
                )
            outs, finals = [out], [final]
        else:
            (fw, fs, _), (bw, bs_, _) = made
            with tf.variable_scope(f"l{layer}"):
                (o_fw, o_bw), (f_fw, f_bw) = tf.nn.bidirectional_dynamic_rnn(
                    fw,
                    bw,
                    layer_in,
                    sequence_length=seq,
                    initial_state_fw=fs,
                    initial_state_bw=bs_,
                    time_major=True,
                )
            outs, finals = [o_fw, o_bw], [f_fw, f_bw]
        for (cell, _, k), final in zip(made, finals):
            cells.append((cell, k, n_in if layer == 0 else units * dirs))
            finals_h.append(final.h if mode == "lstm" else final)
            finals_c.append(final.c if mode == "lstm" else None)
        layer_in = outs[0] if dirs == 1 else tf.concat(outs, axis=2)
    output = layer_in
    h_n = tf.stack(finals_h)
    loss = tf.reduce_sum(output * loss_weights([t, b, units * dirs], 1))
    loss += tf.reduce_sum(h_n * loss_weights([layers * dirs, b, units], 2))
    fetch = {"output": output, "h": h_n}
    if mode == "lstm":
        c_n = tf.stack(finals_c)
        loss += tf.reduce_sum(c_n * loss_weights([layers * dirs, b, units], 3))
        fetch["c"] = c_n
    cell_vars = [
        (cell.weights if hasattr(cell, "weights") else cell.variables, k, w) for cell, k, w in cells
    ]
    all_vars = [v for vs, _, _ in cell_vars for v in vs]
    grads = tf.gradients(loss, [x, h0, c0, *all_vars])
    grads = [tf.zeros_like(v) if gr is None else gr for gr, v in zip(grads, [x, h0, c0, *all_vars])]
    with tf.Session() as sess:
        for vs, k, _ in cell_vars:
            base = k * 2 * g
            values = _tf_values(mode, weights[base : base + 2 * g], biases[base : base + 2 * g])
            assert len(values) == len(vs), (len(values), [v.name for v in vs])
            for v, value in zip(vs, values):
                sess.run(v.assign(value))
        got, grad_values = sess.run([fetch, grads])
    dx, dh, dc = grad_values[:3]
    rest = grad_values[3:]
    d_weights = [None] * len(weights)
    d_biases = [None] * len(biases)
    pos = 0
    for vs, k, width in cell_vars:
        ws, bs = _canonical_grads(mode, width, rest[pos : pos + len(vs)])
        pos += len(vs)
        base = k * 2 * g
        for i in range(2 * g):
            d_weights[base + i] = ws[i]
            d_biases[base + i] = bs[i]
    out = dict(got)
    out.update(
        d_input=dx,
        d_input_h=dh,
        d_weights=d_weights,
        d_biases=d_biases,
    )
    if mode == "lstm":
        out["d_input_c"] = dc
    return out


rec = Recorder("cudnn_rnn")
for case in sorted(CASES):
    tf.reset_default_graph()
    rec.add(case, **record(case))
rec.save()
