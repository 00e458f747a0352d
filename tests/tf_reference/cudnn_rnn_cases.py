"""Cases for the CudnnRNN ops: fixed canonical weights (cuDNN's order: per layer and
direction, one input matrix [units, layer_input] per gate, one recurrent matrix per gate, then
the biases likewise), inputs and states. TF 1.15 has GPU kernels only, so the recorder
(record_cudnn_rnn.py) runs the same model through tf.nn.rnn_cell cells (LSTMCell with
forget_bias 0, contrib's CudnnCompatibleGRUCell, BasicRNNCell) whose variables hold the
canonical weights converted as TF's CudnnParamsFormatConverter converts them, and maps the
gradients back; tests/unit/test_cudnn_rnn_ops.py runs CudnnRNN/V2/V3 on tfcluster.
Python 3.7 code."""

import numpy as np

GATES = {"lstm": 4, "gru": 3, "rnn_relu": 1, "rnn_tanh": 1}

# name -> (rnn_mode, direction, num_layers, time, batch, input_size, num_units, lengths)
CASES = {
    "lstm_one_layer": ("lstm", "unidirectional", 1, 4, 3, 5, 6, None),
    "lstm_two_layers_bidirectional": ("lstm", "bidirectional", 2, 4, 2, 3, 4, None),
    "gru_one_layer": ("gru", "unidirectional", 1, 4, 3, 5, 6, None),
    "gru_bidirectional_lengths": ("gru", "bidirectional", 1, 5, 3, 4, 3, [5, 2, 3]),
    "rnn_tanh_two_layers": ("rnn_tanh", "unidirectional", 2, 3, 2, 4, 5, None),
    "rnn_relu_bidirectional": ("rnn_relu", "bidirectional", 1, 3, 2, 4, 3, None),
    "lstm_lengths": ("lstm", "unidirectional", 1, 5, 3, 4, 3, [1, 5, 3]),
}


def canonical(case):
    """(weights, biases) in cuDNN's canonical order, and x [T, B, in], h0, c0."""
    mode, direction, layers, t, b, n_in, units, _ = CASES[case]
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[mode]
    rng = np.random.RandomState(11)
    weights, biases = [], []
    for layer in range(layers):
        width = n_in if layer == 0 else units * dirs
        for _ in range(dirs):
            weights += [(rng.randn(units, width) * 0.4).astype(np.float32) for _ in range(g)]
            weights += [(rng.randn(units, units) * 0.4).astype(np.float32) for _ in range(g)]
            biases += [(rng.randn(units) * 0.2).astype(np.float32) for _ in range(2 * g)]
    x = rng.randn(t, b, n_in).astype(np.float32)
    h0 = (rng.randn(layers * dirs, b, units) * 0.3).astype(np.float32)
    c0 = (rng.randn(layers * dirs, b, units) * 0.3).astype(np.float32)
    return weights, biases, x, h0, c0


def loss_weights(shape, seed):
    """Fixed weights for the scalar loss sum(w * output), so every output element counts."""
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)
