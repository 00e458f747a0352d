"""The object-based checkpoint keys of tf.keras's save_weights (TF format) for layers that
hold their weights in sub-objects, run by TF 1.15 (record_keras_checkpoint_keys.py) and
tfcluster (tests/unit/test_keras_checkpoint_keys.py): an RNN's under `cell/`, a stack of
cells' under `cell/cells/<i>/` (by add_weight's names, not the variables' `kernel_1`), a
wrapper's under `layer/`, a Bidirectional's under `forward_layer/` and `backward_layer/`, a
nested Sequential added first (built at once from its first layer's input shape) under its own
`layer_with_weights-<i>/`; and the predictions after a save_weights/load_weights round trip
with fixed weights. Python 3.7 code."""

from __future__ import annotations

import os
import tempfile

import numpy as np


def _models(keras):
    recurrent = keras.Sequential(
        [
            keras.layers.LSTM(2, input_shape=(3, 2), return_sequences=True),
            keras.layers.TimeDistributed(keras.layers.Dense(1)),
            keras.layers.Bidirectional(keras.layers.GRU(2)),
            keras.layers.Dense(1),
        ]
    )
    stacked = keras.Sequential(
        [
            keras.layers.RNN(
                [keras.layers.LSTMCell(2), keras.layers.GRUCell(3)], input_shape=(3, 2)
            ),
            keras.layers.Dense(1),
        ]
    )
    inner = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    nested = keras.Sequential([inner, keras.layers.Dense(1)])
    sequences = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 3, 2)
    rows = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    return {
        "recurrent_and_wrappers": (recurrent, sequences),
        "stacked_cells": (stacked, sequences),
        "nested_sequential_first": (nested, rows),
    }


def checkpoint_keys_and_round_trip(tf):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    out = {}
    for name, (model, x) in sorted(_models(tf.keras).items()):
        weights = model.get_weights()
        model.set_weights(
            [
                np.linspace(-0.5, 0.5, w.size, dtype=np.float32).reshape(w.shape) * (k + 1)
                for k, w in enumerate(weights)
            ]
        )
        expected = model.predict(x)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ckpt")
            model.save_weights(path)
            keys = sorted(k for k, _ in tf.train.list_variables(path))
            model.set_weights([np.zeros_like(w) for w in weights])
            model.load_weights(path)
        out[name] = {
            "keys": keys,
            "predictions": np.round(expected, 6).tolist(),
            "restored": bool(np.allclose(model.predict(x), expected)),
        }
    return out


CASES = {"checkpoint_keys_and_round_trip": checkpoint_keys_and_round_trip}
