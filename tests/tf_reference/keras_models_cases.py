"""Whole tf.keras models (graph mode) written once against the TF1 API for TF 1.15 and
tfcluster: each is built, given fixed weights, trained two unshuffled epochs on fixed data,
and then saved (HDF5) and rebuilt. record_keras_models.py runs them on TF 1.15 and stores the
files it saved under data/keras_models/tf/; write_keras_models.py saves tfcluster's under
data/keras_models/tfcluster/, which the recorder loads back with TF.

Kept runnable on Python 3.7 and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

MODELS = {}


def model(fn):
    MODELS[fn.__name__] = fn
    return fn


def fix_weights(m, seed=0):
    rng = np.random.RandomState(seed)
    values = []
    for w in m.get_weights():
        if w.ndim >= 2:
            values.append(rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype))
        else:
            values.append(rng.uniform(0.5, 1.0, w.shape).astype(w.dtype))
    m.set_weights(values)


@model
def mlp(tf):
    K = tf.keras
    m = K.Sequential(
        [
            K.layers.Dense(
                8,
                activation="relu",
                input_shape=(4,),
                kernel_regularizer=K.regularizers.l2(0.01),
                kernel_constraint=K.constraints.MaxNorm(2.0),
            ),
            K.layers.Dropout(0.0),  # no randomness in the fit
            K.layers.Dense(3, activation="softmax"),
        ]
    )
    m.compile(K.optimizers.Adam(0.01), "sparse_categorical_crossentropy", ["accuracy"])
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (24, 4)).astype("float32")
    y = rng.randint(0, 3, (24,)).astype("int64")
    return m, [x], y


@model
def functional(tf):
    K = tf.keras
    a = K.Input(shape=(6,), name="a")
    b = K.Input(shape=(6,), name="b")
    shared = K.layers.Dense(4, activation="tanh", name="shared")
    ha, hb = shared(a), shared(b)
    c = K.layers.Concatenate()([ha, hb])
    n = K.layers.BatchNormalization()(c)
    d = K.layers.Dense(2)(n)
    s = K.layers.Add()([d, K.layers.Dense(2, use_bias=False)(hb)])
    m = K.Model([a, b], s, name="two_towers")
    m.compile(K.optimizers.SGD(0.05, momentum=0.9), "mse")
    rng = np.random.RandomState(2)
    x = [rng.uniform(-1, 1, (16, 6)).astype("float32") for _ in range(2)]
    y = rng.uniform(-1, 1, (16, 2)).astype("float32")
    return m, x, y


@model
def convnet(tf):
    K = tf.keras
    m = K.Sequential(
        [
            K.layers.Conv2D(4, 3, padding="same", activation="relu", input_shape=(8, 8, 1)),
            K.layers.MaxPooling2D(),
            K.layers.Conv2D(3, (2, 2), strides=2),
            K.layers.Flatten(),
            K.layers.Dense(2, activation="softmax"),
        ]
    )
    m.compile(K.optimizers.RMSprop(0.01), "categorical_crossentropy", ["acc"])
    rng = np.random.RandomState(3)
    x = rng.uniform(0, 1, (12, 8, 8, 1)).astype("float32")
    y = np.eye(2, dtype="float32")[rng.randint(0, 2, (12,))]
    return m, [x], y


@model
def recurrent(tf):
    K = tf.keras
    m = K.Sequential(
        [
            K.layers.Embedding(10, 4, input_length=5),
            K.layers.LSTM(6, return_sequences=True),
            K.layers.GRU(3),
            K.layers.Dense(1, activation="sigmoid"),
        ]
    )
    m.compile(K.optimizers.Adam(0.01), "binary_crossentropy")
    rng = np.random.RandomState(4)
    x = rng.randint(0, 10, (10, 5)).astype("int32")
    y = rng.randint(0, 2, (10, 1)).astype("float32")
    return m, [x], y


def trained(tf, name):
    """The model, its inputs and targets, after fixed weights and two unshuffled epochs."""
    tf.keras.backend.clear_session()
    m, x, y = MODELS[name](tf)
    fix_weights(m)
    m.fit(x if len(x) > 1 else x[0], y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return m, x, y


def describe(m, x):
    """What is compared: the model's config, weight names, optimizer state and predictions."""
    import json

    return {
        "config": json.loads(m.to_json()),
        "weight_names": [w.name for w in m.weights],
        "weights": m.get_weights(),
        "optimizer_weight_names": [w.name for w in m.optimizer.weights] if m.optimizer else [],
        "optimizer_weights": m.optimizer.get_weights() if m.optimizer else [],
        "predict": m.predict(x if len(x) > 1 else x[0]),
    }
