"""A tf.keras model built and compiled in a tf.distribute.MirroredStrategy's scope (one
replica: the machine's one device), with compile metrics, fitted on a tf.data Dataset, its
weights saved by a ModelCheckpoint-like save_weights and loaded back by load_weights, then
evaluated: TF 1.15 updates the metrics' replica-local variables once per replica when
compile calls them in the cross-replica context, and restores the mirrored weights. Run on
TF 1.15 by record_keras_strategy_scope.py and on tfcluster by
tests/unit/test_keras_strategy_scope.py. Python 3.7 code."""

from __future__ import annotations

import os

import numpy as np


def _data():
    rng = np.random.RandomState(5)
    x = rng.uniform(-1, 1, (32, 4)).astype("float32")
    y = (x @ np.array([1.0, -2.0, 0.5, 1.5]) > 0).astype("int64")
    return x, y


def run(tf, folder):
    x, y = _data()
    tf.keras.backend.clear_session()
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        rng = np.random.RandomState(2)
        constant = tf.keras.initializers.Constant
        model = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(
                    6,
                    activation="relu",
                    input_shape=(4,),
                    kernel_initializer=constant(rng.uniform(-0.6, 0.6, (4, 6))),
                ),
                tf.keras.layers.Dense(
                    2,
                    activation="softmax",
                    kernel_initializer=constant(rng.uniform(-0.6, 0.6, (6, 2))),
                ),
            ]
        )
        model.compile(
            loss="sparse_categorical_crossentropy",
            optimizer=tf.keras.optimizers.SGD(0.1),
            metrics=["accuracy"],
        )
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    history = model.fit(dataset, epochs=2, verbose=0)
    trained = model.get_weights()
    prefix = os.path.join(folder, "ckpt_2")
    model.save_weights(prefix)
    model.set_weights([np.zeros_like(w) for w in trained])
    model.load_weights(tf.train.latest_checkpoint(folder))
    return {
        "history": {k: [float(v) for v in vs] for k, vs in sorted(history.history.items())},
        "metrics_names": list(model.metrics_names),
        "restored": [bool(np.array_equal(a, b)) for a, b in zip(model.get_weights(), trained)],
        "evaluate": [float(v) for v in model.evaluate(dataset, verbose=0)],
    }
