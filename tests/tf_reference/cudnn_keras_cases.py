"""Keras's CuDNNLSTM / CuDNNGRU: a model with fixed weights in CuDNN's Keras layout. TF 1.15
cannot run them without a GPU, so record_cudnn_keras.py records the layers' variable and
output names and shapes, saves the model's weights as TF writes them (an HDF5 file), and
computes the outputs with tf.keras.layers.LSTM / GRU holding the same weights converted by
Keras's own loader (hdf5_format._convert_rnn_weights); tests/unit/test_cudnn_keras_layers.py
runs the CuDNN layers on tfcluster. Python 3.7 code."""

import numpy as np

UNITS = 3
TIME, FEATURES, BATCH = 4, 2, 2


def weights(kind):
    rng = np.random.RandomState(21 if kind == "lstm" else 22)
    gates = 4 if kind == "lstm" else 3
    return [
        (rng.randn(FEATURES, gates * UNITS) * 0.5).astype(np.float32),
        (rng.randn(UNITS, gates * UNITS) * 0.5).astype(np.float32),
        (rng.randn(2 * gates * UNITS) * 0.3).astype(np.float32),
    ]


def inputs():
    return np.random.RandomState(23).randn(BATCH, TIME, FEATURES).astype(np.float32)


def build(tf, kind):
    """A functional model: Input -> CuDNN layer (sequences and states)."""
    x = tf.keras.Input((TIME, FEATURES))
    cls = tf.keras.layers.CuDNNLSTM if kind == "lstm" else tf.keras.layers.CuDNNGRU
    layer = cls(UNITS, return_sequences=True, return_state=True)
    outs = layer(x)
    model = tf.keras.Model(x, outs)
    return model, layer


def describe(layer, outs):
    return {
        "layer_name": layer.name,
        "weights": [w.name for w in layer.weights],
        "weight_shapes": [w.shape.as_list() for w in layer.weights],
        "output_shapes": [o.shape.as_list() for o in outs],
    }
