"""tf.keras programs (graph mode) written once against the TF1 API and run twice: by
record_keras.py with TensorFlow 1.15, and by tests/unit/test_keras_reference.py with
tfcluster. Weights are set from fixed numpy arrays and fits run unshuffled, so every value is
deterministic: layer outputs, variable and tensor names, per-epoch losses and metrics,
evaluate/predict/train_on_batch results, summary() text and save_weights keys.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES)


def _fixed_weights(model, seed=0):
    rng = np.random.RandomState(seed)
    weights = []
    for w in model.get_weights():
        if w.ndim >= 2 or len(weights) == 0:
            weights.append(rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype))
        else:
            weights.append(rng.uniform(-0.1, 0.1, w.shape).astype(w.dtype))
    model.set_weights(weights)


def _data(n=40, features=4, classes=3, seed=1):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (n, features)).astype("float32")
    y = (np.abs(x.sum(axis=1)) * 2).astype("int64") % classes
    return x, y


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return lines


def _names(tensors):
    return [t.name for t in tensors]


def _mlp(tf, optimizer, loss, metrics, last_units=3, last_activation="softmax"):
    K = tf.keras
    model = K.Sequential(
        [
            K.layers.Dense(8, activation="relu", input_shape=(4,)),
            K.layers.Dense(last_units, activation=last_activation),
        ]
    )
    _fixed_weights(model)
    model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
    return model


def _fit_result(model, x, y, epochs=3, batch_size=16, **kwargs):
    history = model.fit(
        x, y, batch_size=batch_size, epochs=epochs, verbose=0, shuffle=False, **kwargs
    )
    return {
        "history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
        "epochs": list(history.epoch),
        "metrics_names": list(model.metrics_names),
        "evaluate": [float(v) for v in np.atleast_1d(model.evaluate(x, y, verbose=0))],
        "predict": model.predict(x[:5]),
        "weights": model.get_weights(),
    }


@case
def dense_layer_names_and_values(tf):
    K = tf.keras
    K.backend.clear_session()
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    d = K.layers.Dense(3, activation="relu")
    y1 = d(x)
    y2 = d(x)
    with tf.name_scope("outer"):
        z = K.layers.Dense(2)(y1)
    rng = np.random.RandomState(3)
    d.set_weights([rng.uniform(-1, 1, (4, 3)).astype("float32"), np.float32([0.1, -0.2, 0.3])])
    sess = K.backend.get_session()
    feed = {x: rng.uniform(-1, 1, (5, 4)).astype("float32")}
    return {
        "tensors": _names([y1, y2, z]),
        "variables": [v.name for v in tf.global_variables()],
        "trainable": [v.name for v in tf.trainable_variables()],
        "values": sess.run([y1, y2], feed),
        "layer_name": d.name,
    }


@case
def layer_outputs(tf):
    """Many layers at once, weights fixed, run in inference mode."""
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(4)
    img = K.Input(shape=(6, 6, 2))
    seq = K.Input(shape=(5, 3))
    ids = K.Input(shape=(4,), dtype="int32")
    layers = [
        ("conv2d", K.layers.Conv2D(3, 3, padding="same", activation="relu"), img),
        ("conv2d_valid_strided", K.layers.Conv2D(2, (2, 3), strides=2), img),
        ("conv1d", K.layers.Conv1D(4, 2, activation="tanh"), seq),
        ("conv3d_input", K.layers.Reshape((6, 6, 2, 1)), img),
        ("separable", K.layers.SeparableConv2D(4, 3), img),
        ("transpose", K.layers.Conv2DTranspose(2, 3, strides=2), img),
        ("maxpool2d", K.layers.MaxPooling2D(), img),
        ("avgpool2d", K.layers.AveragePooling2D(pool_size=3, strides=1, padding="same"), img),
        ("maxpool1d", K.layers.MaxPooling1D(), seq),
        ("avgpool1d", K.layers.AveragePooling1D(), seq),
        ("gap2d", K.layers.GlobalAveragePooling2D(), img),
        ("gmp2d", K.layers.GlobalMaxPooling2D(), img),
        ("gap1d", K.layers.GlobalAveragePooling1D(), seq),
        ("flatten", K.layers.Flatten(), img),
        ("reshape", K.layers.Reshape((-1, 4)), img),
        ("activation", K.layers.Activation("sigmoid"), seq),
        ("batchnorm", K.layers.BatchNormalization(), img),
        ("dropout", K.layers.Dropout(0.5), seq),
        ("embedding", K.layers.Embedding(10, 3), ids),
        ("lambda", K.layers.Lambda(lambda t: t * 2.0 + 1.0), seq),
    ]
    outputs = {}
    for name, layer, source in layers:
        outputs[name] = layer(source)
    conv3d_in = outputs.pop("conv3d_input")
    outputs["conv3d"] = K.layers.Conv3D(2, 2)(conv3d_in)
    outputs["maxpool3d"] = K.layers.MaxPooling3D(pool_size=(2, 2, 1))(conv3d_in)
    a = K.layers.Dense(3)(seq)
    b = K.layers.Dense(3)(seq)
    outputs["concatenate"] = K.layers.Concatenate()([a, b])
    outputs["add"] = K.layers.Add()([a, b])
    outputs["multiply"] = K.layers.Multiply()([a, b])
    sess = K.backend.get_session()
    for v in tf.global_variables():
        shape = v.shape.as_list()
        if "moving_variance" in v.name or "gamma" in v.name:
            value = rng.uniform(0.5, 1.5, shape)
        else:
            value = rng.uniform(-0.5, 0.5, shape)
        K.backend.set_value(v, value.astype("float32"))
    feed = {
        img: rng.uniform(-1, 1, (2, 6, 6, 2)).astype("float32"),
        seq: rng.uniform(-1, 1, (2, 5, 3)).astype("float32"),
        ids: rng.randint(0, 10, (2, 4)).astype("int32"),
    }
    keys = sorted(outputs)
    values = sess.run([outputs[k] for k in keys], feed)
    return {
        "values": dict(zip(keys, values)),
        "shapes": {k: outputs[k].shape.as_list() for k in keys},
        "variables": [v.name for v in tf.global_variables()],
    }


@case
def sequential_fit_sgd_sparse(tf):
    tf.keras.backend.clear_session()
    x, y = _data()
    model = _mlp(tf, tf.keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy", ["accuracy"])
    out = _fit_result(model, x, y, validation_split=0.25)
    out["variables"] = [v.name for v in tf.global_variables()]
    out["inputs"] = _names(model.inputs)
    out["outputs"] = _names(model.outputs)
    out["train_on_batch"] = [float(v) for v in model.train_on_batch(x[:7], y[:7])]
    return out


@case
def sequential_fit_adam_string(tf):
    tf.keras.backend.clear_session()
    x, y = _data()
    model = _mlp(tf, "adam", "sparse_categorical_crossentropy", ["accuracy"])
    out = _fit_result(model, x, y, validation_data=(x[:10], y[:10]))
    out["variables"] = [v.name for v in tf.global_variables()]
    return out


@case
def sequential_fit_rmsprop_categorical(tf):
    tf.keras.backend.clear_session()
    x, y = _data()
    y1 = tf.keras.utils.to_categorical(y, 3)
    model = _mlp(tf, tf.keras.optimizers.RMSprop(0.01), "categorical_crossentropy", ["acc"])
    out = _fit_result(model, x, y1)
    out["variables"] = [v.name for v in tf.global_variables()]
    out["one_hot"] = y1[:5]
    return out


@case
def sequential_fit_rmsprop_momentum_mse(tf):
    tf.keras.backend.clear_session()
    x, _ = _data()
    target = np.stack([x.sum(1), x[:, 0] * x[:, 1]], 1).astype("float32")
    optimizer = tf.keras.optimizers.RMSprop(0.01, momentum=0.5)
    model = _mlp(tf, optimizer, "mse", ["mae"], last_units=2, last_activation=None)
    return _fit_result(model, x, target)


@case
def sequential_fit_sgd_momentum_nesterov(tf):
    tf.keras.backend.clear_session()
    x, _ = _data()
    target = x.sum(1, keepdims=True).astype("float32")
    optimizer = tf.keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True)
    model = _mlp(tf, optimizer, "mean_absolute_error", None, last_units=1, last_activation=None)
    return _fit_result(model, x, target)


@case
def sequential_fit_adagrad_binary(tf):
    tf.keras.backend.clear_session()
    x, y = _data()
    target = (y > 0).astype("float32")
    model = _mlp(
        tf, tf.keras.optimizers.Adagrad(0.1), "binary_crossentropy", ["accuracy"],
        last_units=1, last_activation="sigmoid",
    )  # fmt: skip
    out = _fit_result(model, x, target)
    out["variables"] = [v.name for v in tf.global_variables()]
    return out


@case
def sequential_fit_tf_train_optimizer(tf):
    tf.keras.backend.clear_session()
    x, y = _data()
    model = _mlp(
        tf, tf.train.GradientDescentOptimizer(0.2), "sparse_categorical_crossentropy", ["accuracy"]
    )
    return _fit_result(model, x, y, epochs=2)


@case
def functional_model(tf):
    K = tf.keras
    K.backend.clear_session()
    inp = K.Input(shape=(4,))
    a = K.layers.Dense(6, activation="relu")(inp)
    b = K.layers.Dense(6, activation="tanh")(inp)
    merged = K.layers.concatenate([a, b])
    out = K.layers.Dense(3, activation="softmax")(merged)
    model = K.Model(inputs=inp, outputs=out)
    _fixed_weights(model)
    model.compile(K.optimizers.Adam(0.01), "sparse_categorical_crossentropy", ["accuracy"])
    x, y = _data()
    result = _fit_result(model, x, y, epochs=2)
    result["summary"] = _summary(model)
    result["layers"] = [layer.name for layer in model.layers]
    result["inputs"] = _names(model.inputs)
    result["outputs"] = _names(model.outputs)
    return result


@case
def chain_functional_model_summary(tf):
    K = tf.keras
    K.backend.clear_session()
    inp = K.Input(shape=(8, 8, 1))
    h = K.layers.Conv2D(4, 3, activation="relu")(inp)
    h = K.layers.MaxPooling2D()(h)
    h = K.layers.BatchNormalization()(h)
    h = K.layers.Flatten()(h)
    h = K.layers.Dropout(0.2)(h)
    out = K.layers.Dense(10, activation="softmax")(h)
    model = K.Model(inp, out, name="cnn")
    return {"summary": _summary(model), "variables": [v.name for v in tf.global_variables()]}


@case
def sequential_summary(tf):
    K = tf.keras
    K.backend.clear_session()
    model = K.Sequential()
    model.add(K.layers.Embedding(100, 8, input_length=5))
    model.add(K.layers.Flatten())
    model.add(K.layers.Dense(4))
    model.add(K.layers.Activation("softmax"))
    return {"summary": _summary(model), "inputs": _names(model.inputs)}


@case
def cnn_fit_with_batchnorm(tf):
    K = tf.keras
    K.backend.clear_session()
    model = K.Sequential(
        [
            K.layers.Conv2D(3, 3, activation="relu", input_shape=(6, 6, 1)),
            K.layers.BatchNormalization(),
            K.layers.MaxPooling2D(),
            K.layers.Flatten(),
            K.layers.Dense(2, activation="softmax"),
        ]
    )
    rng = np.random.RandomState(7)
    weights = []
    for w in model.get_weights():
        low = 0.5 if w.ndim == 1 and len(weights) in (3, 5) else -0.5
        weights.append(rng.uniform(low, abs(low) + 0.5, w.shape).astype("float32"))
    model.set_weights(weights)
    model.compile(K.optimizers.SGD(0.05), "sparse_categorical_crossentropy", ["accuracy"])
    x = rng.uniform(-1, 1, (24, 6, 6, 1)).astype("float32")
    y = (x.mean(axis=(1, 2, 3)) > 0).astype("int32")
    out = _fit_result(model, x, y, epochs=2, batch_size=8)
    out["variables"] = [v.name for v in tf.global_variables()]
    out["summary"] = _summary(model)
    return out


@case
def subclassed_model(tf):
    K = tf.keras
    K.backend.clear_session()

    class Net(K.Model):
        def __init__(self):
            super().__init__()
            self.hidden = K.layers.Dense(5, activation="relu")
            self.out = K.layers.Dense(3, activation="softmax")

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    model = Net()
    model.compile(K.optimizers.SGD(0.1), "sparse_categorical_crossentropy", ["accuracy"])
    x, y = _data()
    model.predict(x[:2])
    _fixed_weights(model)
    out = _fit_result(model, x, y, epochs=2)
    out["variables"] = [v.name for v in tf.global_variables()]
    out["layers"] = [layer.name for layer in model.layers]
    return out


@case
def save_and_load_weights(tf):
    K = tf.keras
    K.backend.clear_session()
    x, y = _data()
    model = _mlp(tf, "adam", "sparse_categorical_crossentropy", ["accuracy"])
    model.fit(x, y, epochs=1, verbose=0, shuffle=False)
    path = os.path.join(tempfile.mkdtemp(), "weights", "ckpt")
    model.save_weights(path)
    saved = model.get_weights()
    keys = [k for k, _ in tf.train.list_variables(path)]
    model.set_weights([np.zeros_like(w) for w in saved])
    model.load_weights(path)
    restored = model.get_weights()
    return {
        "keys": keys,
        "files": sorted(os.listdir(os.path.dirname(path))),
        "same": all(np.array_equal(a, b) for a, b in zip(saved, restored)),
    }


@case
def loss_and_metric_functions(tf):
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(5)
    y_true = rng.uniform(0, 1, (4, 3)).astype("float32")
    y_pred = tf.constant(rng.uniform(0.05, 0.95, (4, 3)).astype("float32"))
    labels = np.int64([0, 2, 1, 2])
    one_hot = np.eye(3, dtype="float32")[labels]
    names = [
        "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
        "mean_squared_logarithmic_error", "squared_hinge", "hinge", "categorical_hinge",
        "logcosh", "kullback_leibler_divergence", "poisson", "binary_crossentropy",
        "cosine_proximity",
    ]  # fmt: skip
    tensors = {n: getattr(K.losses, n)(y_true, y_pred) for n in names}
    tensors["categorical_crossentropy"] = K.losses.categorical_crossentropy(one_hot, y_pred)
    tensors["sparse_categorical_crossentropy"] = K.losses.sparse_categorical_crossentropy(
        labels, y_pred
    )
    logits = y_pred * 4 - 2
    tensors["cce_of_softmax"] = K.losses.categorical_crossentropy(one_hot, tf.nn.softmax(logits))
    tensors["cce_from_logits"] = K.losses.categorical_crossentropy(
        one_hot, logits, from_logits=True
    )
    tensors["bce_of_sigmoid"] = K.losses.binary_crossentropy(y_true, tf.sigmoid(logits))
    tensors["categorical_accuracy"] = K.metrics.categorical_accuracy(one_hot, y_pred)
    tensors["sparse_categorical_accuracy"] = K.metrics.sparse_categorical_accuracy(
        labels.reshape(4, 1).astype("float32"), y_pred
    )
    tensors["binary_accuracy"] = K.metrics.binary_accuracy(np.round(y_true), y_pred)
    tensors["mse_class"] = K.losses.MeanSquaredError()(y_true, y_pred)
    tensors["cce_class"] = K.losses.CategoricalCrossentropy()(one_hot, y_pred)
    tensors["relu"] = K.activations.relu(y_pred - 0.5)
    tensors["softmax"] = K.activations.softmax(y_pred)
    tensors["hard_sigmoid"] = K.activations.hard_sigmoid(y_pred * 6 - 3)
    sess = K.backend.get_session()
    keys = sorted(tensors)
    return dict(zip(keys, sess.run([tensors[k] for k in keys])))


@case
def metric_classes(tf):
    K = tf.keras
    K.backend.clear_session()
    mean = K.metrics.Mean()
    acc = K.metrics.SparseCategoricalAccuracy()
    v1 = mean(np.float32([1, 2, 3]))
    v2 = acc(np.float32([[0], [1]]), np.float32([[0.9, 0.1], [0.8, 0.2]]))
    sess = K.backend.get_session()
    sess.run(tf.local_variables_initializer())
    first = sess.run([v1, v2])
    second = sess.run([v1, v2])
    return {"first": first, "second": second, "names": [mean.name, acc.name]}


@case
def backend_functions(tf):
    K = tf.keras.backend
    K.clear_session()
    v = K.variable(np.float32([[1, 2], [3, 4]]), name="v")
    K.set_value(v, np.float32([[5, 6], [7, 8]]))
    p = K.placeholder(shape=(None, 3), name="p")
    return {
        "floatx": K.floatx(),
        "epsilon": K.epsilon(),
        "value": K.get_value(v),
        "batch": K.batch_get_value([v]),
        "eval": K.eval(v * 2),
        "int_shape": list(K.int_shape(p)),
        "placeholder": p.name,
        "variable": v.name,
        "learning_phase": K.learning_phase().name,
        "ndim": K.ndim(p),
        "dtype": K.dtype(p),
    }


@case
def errors(tf):
    K = tf.keras
    K.backend.clear_session()

    def err(fn):
        try:
            fn()
        except Exception as e:
            return type(e).__name__
        return None

    model = K.Sequential([K.layers.Dense(2, input_shape=(3,))])
    return {
        "fit_without_compile": err(
            lambda: model.fit(np.zeros((2, 3)), np.zeros((2, 2)), verbose=0)
        ),
        "set_weights_wrong_count": err(lambda: model.set_weights([np.zeros((3, 2))])),
        "set_weights_wrong_shape": err(lambda: model.set_weights([np.zeros((2, 2)), np.zeros(2)])),
        "unknown_activation": err(lambda: K.layers.Dense(2, activation="nope")),
        "unknown_loss": err(lambda: K.losses.get("nope")),
        "unknown_optimizer": err(lambda: K.optimizers.get("nope")),
    }


def _recurrent_outputs(tf, make_layers):
    """Every (name, layer) of make_layers(K) called on one [2, 5, 3] input, weights fixed."""
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(11)
    seq = K.Input(shape=(5, 3))
    outputs, layers = {}, []
    for name, layer in make_layers(K):
        out = layer(seq)
        layers.append(layer)
        if isinstance(out, list):
            for i, t in enumerate(out):
                outputs[f"{name}_{i}"] = t
        else:
            outputs[name] = out
    for layer in layers:
        layer.set_weights([rng.uniform(-0.6, 0.6, w.shape).astype("float32")
                           for w in layer.get_weights()])  # fmt: skip
    sess = K.backend.get_session()
    keys = sorted(outputs)
    values = sess.run([outputs[k] for k in keys], {seq: rng.uniform(-1, 1, (2, 5, 3))})
    return {
        "values": dict(zip(keys, values)),
        "shapes": {k: outputs[k].shape.as_list() for k in keys},
        "variables": [v.name for v in tf.global_variables()],
        "weight_shapes": [[list(w.shape) for w in layer.get_weights()] for layer in layers],
        "layer_names": [layer.name for layer in layers],
    }


@case
def simple_rnn_outputs(tf):
    return _recurrent_outputs(tf, lambda K: [
        ("last", K.layers.SimpleRNN(4)),
        ("sequences", K.layers.SimpleRNN(4, return_sequences=True, activation="relu")),
        ("state", K.layers.SimpleRNN(2, return_state=True, go_backwards=True)),
        ("no_bias", K.layers.SimpleRNN(3, use_bias=False, return_sequences=True)),
    ])  # fmt: skip


@case
def gru_outputs(tf):
    return _recurrent_outputs(tf, lambda K: [
        ("last", K.layers.GRU(4)),
        ("sequences", K.layers.GRU(4, return_sequences=True)),
        ("state", K.layers.GRU(3, return_state=True, return_sequences=True, go_backwards=True)),
        ("reset_after", K.layers.GRU(4, reset_after=True, recurrent_activation="sigmoid")),
    ])  # fmt: skip


@case
def lstm_outputs(tf):
    return _recurrent_outputs(tf, lambda K: [
        ("last", K.layers.LSTM(4)),
        ("sequences", K.layers.LSTM(4, return_sequences=True)),
        ("state", K.layers.LSTM(3, return_state=True, go_backwards=True)),
        ("sigmoid", K.layers.LSTM(2, recurrent_activation="sigmoid", unit_forget_bias=False,
                                  return_sequences=True, return_state=True)),
    ])  # fmt: skip


@case
def lstm_fit(tf):
    """An LSTM classifier trained for two epochs: gradients through the loop, initial
    weights as Keras makes them (the bias with the forget gate's ones). Sigmoid gates: the
    default hard_sigmoid's gradient jumps at its clip points, so float rounding in which
    side a pre-activation falls on would grow over the steps of a fit."""
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(12)
    model = K.Sequential([
        K.layers.LSTM(5, input_shape=(4, 3), return_sequences=True,
                      recurrent_activation="sigmoid"),
        K.layers.GRU(4, recurrent_activation="sigmoid"),
        K.layers.Dense(2, activation="softmax"),
    ])  # fmt: skip
    initial_bias = model.layers[0].get_weights()[2]
    _fixed_weights(model, seed=12)
    # SGD: Adam turns float-rounding-sized gradients into full-sized steps.
    model.compile(K.optimizers.SGD(0.3, momentum=0.5), "sparse_categorical_crossentropy", ["acc"])
    x = rng.uniform(-1, 1, (24, 4, 3)).astype("float32")
    y = (x[:, :, 0].sum(axis=1) > 0).astype("int32")
    out = _fit_result(model, x, y, epochs=2, batch_size=8)
    out["variables"] = [v.name for v in tf.global_variables()]
    out["summary"] = _summary(model)
    out["initial_lstm_bias"] = initial_bias
    return out


@case
def recurrent_gradients(tf):
    """Gradients through the time loop of every recurrent layer, weights fixed."""
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(13)
    seq = K.Input(shape=(4, 3))
    layers = [K.layers.SimpleRNN(3), K.layers.GRU(3, return_sequences=True),
              K.layers.GRU(2, reset_after=True), K.layers.LSTM(3, go_backwards=True)]  # fmt: skip
    loss = 0.0
    for layer in layers:
        loss = loss + tf.reduce_sum(tf.square(layer(seq)))
    weights = [w for layer in layers for w in layer.trainable_weights]
    for layer in layers:
        layer.set_weights([rng.uniform(-0.6, 0.6, w.shape).astype("float32")
                           for w in layer.get_weights()])  # fmt: skip
    grads = tf.gradients(loss, [*weights, seq])
    sess = K.backend.get_session()
    values = sess.run(grads, {seq: rng.uniform(-1, 1, (2, 4, 3))})
    return {"gradients": values, "weights": [w.name for w in weights]}
