"""The Keras models the Keras-SavedModel reference saves, loads and compares, built with
whichever `tf` module a caller passes (TF 1.15 in record_keras_tf_savedmodel.py and
check_keras_tf_savedmodel_roundtrip.py, tfcluster in tests/unit/test_keras_tf_savedmodel.py),
with the inputs, targets and fixed weights they are run on. Python 3.7 code."""

from __future__ import annotations

import numpy as np

X = np.linspace(-1, 1, 15).reshape(5, 3).astype(np.float32)
Y_CLASSES = np.array([0, 1, 0, 1, 1])
Y_VALUES = np.linspace(0, 1, 10).reshape(5, 2).astype(np.float32)
X_SEQUENCES = np.linspace(-1, 1, 75).reshape(5, 5, 3).astype(np.float32)


def set_weights(model):
    if model.name == "nested":  # positive: a batch norm's moving variance among them
        values = [np.linspace(0.1, 1, np.prod(w.shape)) for w in model.get_weights()]
    else:
        values = [np.arange(np.prod(w.shape)) / 10 - 0.5 for w in model.get_weights()]
    model.set_weights(
        [v.reshape(w.shape).astype(np.float32) for v, w in zip(values, model.get_weights())]
    )


def sequential_mlp(tf):
    model = tf.keras.models.Sequential(
        [
            tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
            tf.keras.layers.Dropout(0.2),
            tf.keras.layers.Dense(2, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def functional_mlp(tf):
    inputs = tf.keras.Input(shape=(3,), name="features")
    hidden = tf.keras.layers.Dense(4, activation="tanh", name="hidden")(inputs)
    outputs = tf.keras.layers.Dense(2, name="logits")(hidden)
    model = tf.keras.Model(inputs, outputs, name="mlp")
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    return model


def nested_mlp(tf):
    inner = tf.keras.Sequential(
        [tf.keras.layers.Dense(3, activation="relu", input_shape=(4,))], name="inner"
    )
    inputs = tf.keras.Input(shape=(3,), name="features")
    hidden = tf.keras.layers.Dense(4, name="hidden")(inputs)
    hidden = tf.keras.layers.BatchNormalization(name="norm")(hidden)
    outputs = tf.keras.layers.Dense(2, activation="softmax", name="probs")(inner(hidden))
    model = tf.keras.Model(inputs, outputs, name="nested")
    model.compile("rmsprop", "sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def recurrent(tf):
    model = tf.keras.Sequential(
        [
            tf.keras.layers.GRU(3, input_shape=(5, 3)),
            tf.keras.layers.Dense(2, activation="softmax"),
        ],
        name="recurrent",
    )
    model.compile("adam", "mse")
    return model


def two_inputs(tf):
    a = tf.keras.Input(shape=(3,), name="a")
    b = tf.keras.Input(shape=(2,), name="b")
    joined = tf.keras.layers.concatenate([a, b])
    first = tf.keras.layers.Dense(2, name="first")(joined)
    second = tf.keras.layers.Dense(1, activation="sigmoid", name="second")(joined)
    model = tf.keras.Model([a, b], [first, second], name="two_inputs")
    model.compile("adam", ["mse", "binary_crossentropy"])
    return model
