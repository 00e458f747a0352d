"""tf.keras layers (graph mode) written once for TF 1.15 and tfcluster: each case builds one
layer on a fixed input, sets its weights from a seeded generator, and reports the output
(inference phase), its static shape, the variables' names, the layer's config, and the
gradients of sum(output * fixed weights) with respect to the input and each weight.
record_keras_layers2.py runs them on TF 1.15; test_keras_layers2_reference.py on tfcluster.

Kept runnable on Python 3.7 and free of anything but numpy.
"""

from __future__ import annotations

import json
import re

import numpy as np

CASES = {}


def case(input_shape, dtype="float32", low=-1.0, high=1.0):
    def wrap(fn):
        CASES[fn.__name__] = (fn, input_shape, dtype, low, high)
        return fn

    return wrap


@case((2, 5, 3))
def zero_padding1d(L):
    return L.ZeroPadding1D((1, 2))


@case((2, 4, 5, 2))
def zero_padding2d(L):
    return L.ZeroPadding2D(((1, 2), (0, 1)))


@case((1, 3, 3, 3, 2))
def zero_padding3d(L):
    return L.ZeroPadding3D(1)


@case((2, 6, 3))
def cropping1d(L):
    return L.Cropping1D((1, 2))


@case((2, 6, 5, 2))
def cropping2d(L):
    return L.Cropping2D(((1, 0), (2, 1)))


@case((1, 4, 4, 4, 2))
def cropping3d(L):
    return L.Cropping3D(((1, 1), (0, 1), (1, 0)))


@case((2, 4, 3))
def upsampling1d(L):
    return L.UpSampling1D(3)


@case((2, 3, 4, 2))
def upsampling2d_nearest(L):
    return L.UpSampling2D((2, 3))


@case((2, 3, 4, 2))
def upsampling2d_bilinear(L):
    return L.UpSampling2D(2, interpolation="bilinear")


@case((1, 2, 3, 2, 2))
def upsampling3d(L):
    return L.UpSampling3D((2, 1, 2))


@case((2, 6, 6, 3))
def depthwise_conv2d(L):
    return L.DepthwiseConv2D(3, depth_multiplier=2, activation="relu")


@case((2, 7, 7, 2))
def depthwise_conv2d_same_strided(L):
    return L.DepthwiseConv2D((2, 3), strides=2, padding="same", use_bias=False)


@case((2, 4, 4, 3))
def prelu_shared(L):
    return L.PReLU(alpha_initializer="ones", shared_axes=[1, 2])


@case((2, 5))
def prelu(L):
    return L.PReLU()


@case((2, 5, 3))
def elu(L):
    return L.ELU(0.5)


@case((2, 5, 3))
def thresholded_relu(L):
    return L.ThresholdedReLU(0.2)


@case((2, 5, 3))
def leaky_relu(L):
    return L.LeakyReLU(0.3)


@case((2, 5, 3))
def gaussian_noise_inference(L):
    return L.GaussianNoise(0.5)


@case((2, 5, 3))
def gaussian_dropout_inference(L):
    return L.GaussianDropout(0.3)


@case((2, 5, 3))
def alpha_dropout_inference(L):
    return L.AlphaDropout(0.3)


@case((2, 5, 3))
def spatial_dropout1d_inference(L):
    return L.SpatialDropout1D(0.3)


@case((2, 4, 4, 3))
def spatial_dropout2d_inference(L):
    return L.SpatialDropout2D(0.3)


@case((1, 3, 3, 3, 2))
def spatial_dropout3d_inference(L):
    return L.SpatialDropout3D(0.3)


@case((2, 5, 3))
def activity_regularization(L):
    return L.ActivityRegularization(l1=0.01, l2=0.02)


@case((2, 5, 4))
def layer_normalization(L):
    return L.LayerNormalization()


@case((2, 3, 4, 2))
def layer_normalization_two_axes(L):
    return L.LayerNormalization(axis=[1, 3], epsilon=1e-5)


@case((2, 6, 3))
def locally_connected1d(L):
    return L.LocallyConnected1D(4, 3, strides=2, activation="tanh")


@case((2, 5, 6, 2))
def locally_connected2d(L):
    return L.LocallyConnected2D(3, (2, 3), strides=(1, 2))


@case((2, 4, 3))
def time_distributed_dense(L):
    return L.TimeDistributed(L.Dense(5, activation="relu"))


@case((2, 3, 4, 4, 1))
def time_distributed_conv(L):
    return L.TimeDistributed(L.Conv2D(2, 3))


@case((2, 5, 3))
def bidirectional_lstm_concat(L):
    return L.Bidirectional(L.LSTM(4, return_sequences=True))


@case((2, 5, 3))
def bidirectional_gru_sum(L):
    return L.Bidirectional(L.GRU(3), merge_mode="sum")


@case((2, 5, 3))
def stacked_cells(L):
    return L.RNN([L.LSTMCell(3), L.SimpleRNNCell(2)], return_sequences=True)


@case((2, 3, 5, 5, 2))
def conv_lstm2d(L):
    return L.ConvLSTM2D(3, (3, 3), padding="same", return_sequences=True)


@case((2, 3, 6, 6, 1))
def conv_lstm2d_valid_last(L):
    return L.ConvLSTM2D(2, (2, 2), strides=2)


def _fix(layer, seed=0):
    rng = np.random.RandomState(seed)
    values = []
    for w in layer.get_weights():
        values.append(rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype))
    layer.set_weights(values)


def run_case(tf, name):
    fn, shape, dtype, low, high = CASES[name]
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(7)
    x_value = rng.uniform(low, high, shape).astype(dtype)
    x = K.Input(batch_shape=shape, dtype=dtype)
    layer = fn(K.layers)
    y = layer(x)
    _fix(layer)
    y_value_shape = K.backend.int_shape(y)
    weights_out = rng.uniform(-1, 1, [d for d in y_value_shape]).astype("float32")
    loss = tf.reduce_sum(y * weights_out)
    wrt = [x, *layer.trainable_weights]
    grads = tf.gradients(loss, wrt)
    sess = K.backend.get_session()
    values = sess.run([y] + [g for g in grads if g is not None], {x: x_value})
    return {
        "input": x_value,
        "output": values[0],
        "shape": list(y_value_shape),
        "variables": [v.name for v in tf.global_variables()],
        "config": json.loads(json.dumps(layer.get_config(), default=_json_default)),
        "grad_present": [g is not None for g in grads],
        "grads": values[1:],
    }


def _json_default(obj):
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if isinstance(obj, (np.generic,)):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(repr(obj))


# ---- functions on fixed tensors: constraints, backend maths, masked recurrences -------------
FUNCTIONS = {}


def function(fn):
    FUNCTIONS[fn.__name__] = fn
    return fn


def _rng_array(seed, shape, low=-1.0, high=1.0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype("float32")


@function
def constraints(tf):
    K = tf.keras
    C = K.constraints
    w = K.backend.constant(_rng_array(1, (3, 4), -2, 2))
    k3 = K.backend.constant(_rng_array(2, (3, 3, 2, 2)))
    k4 = K.backend.constant(_rng_array(3, (4, 4, 1, 2)))
    k5 = K.backend.constant(_rng_array(4, (5, 5, 1, 1)))
    out = {
        "max_norm": C.MaxNorm(1.0)(w),
        "max_norm_axis1": C.max_norm(0.5, axis=1)(w),
        "non_neg": C.NonNeg()(w),
        "unit_norm": C.UnitNorm()(w),
        "min_max_norm": C.MinMaxNorm(0.5, 1.5, rate=0.7)(w),
        "radial3": C.RadialConstraint()(k3),
        "radial4": C.RadialConstraint()(k4),
        "radial5": C.radial_constraint()(k5),
    }
    keys = sorted(out)
    values = K.backend.get_session().run([out[k] for k in keys])
    configs = {
        name: C.serialize(c)
        for name, c in (
            ("max_norm", C.MaxNorm(1.0)),
            ("min_max_norm", C.MinMaxNorm(0.5, 1.5, rate=0.7)),
            ("unit_norm", C.UnitNorm(axis=1)),
            ("non_neg", C.NonNeg()),
        )
    }
    roundtrip = C.get({"class_name": "MaxNorm", "config": {"max_value": 3, "axis": 1}})
    return {
        "values": dict(zip(keys, values)),
        "configs": configs,
        "get_max_norm": [type(roundtrip).__name__, roundtrip.max_value, roundtrip.axis],
        "get_by_name": type(C.get("unit_norm")).__name__,
    }


@function
def backend_maths(tf):
    K = tf.keras.backend
    x = K.constant(_rng_array(5, (2, 3, 4)))
    y = K.constant(_rng_array(6, (4, 5)))
    a = K.constant(_rng_array(7, (2, 3)))
    b = K.constant(_rng_array(8, (2, 3)))
    m = K.constant(_rng_array(9, (2, 4, 3)))
    ints = K.constant(np.array([[1, 0, 2], [3, 3, 0]]), dtype="int32")
    out = {
        "dot_nd": K.dot(x, y),
        "batch_dot_2d": K.batch_dot(a, b, axes=1),
        "batch_dot_3d": K.batch_dot(x, m),
        "batch_dot_axes": K.batch_dot(x, x, axes=[2, 2]),
        "repeat_elements": K.repeat_elements(x, 2, axis=1),
        "repeat": K.repeat(a, 3),
        "std": K.std(x, axis=1),
        "var": K.var(x, axis=-1, keepdims=True),
        "max": K.max(x, axis=2),
        "min": K.min(x),
        "prod": K.prod(x, axis=0),
        "cumsum": K.cumsum(x, axis=1),
        "cumprod": K.cumprod(a, axis=1),
        "argmin": K.argmin(x),
        "all": K.all(K.greater(x, -0.9), axis=1),
        "any": K.any(K.less(x, -0.9), axis=2),
        "switch_tensor": K.switch(K.greater(x, 0.0), x, x * 3.0),
        "in_train_phase_false": K.in_train_phase(x * 2.0, x),
        "l2_normalize": K.l2_normalize(x, axis=-1),
        "permute": K.permute_dimensions(x, (2, 0, 1)),
        "batch_flatten": K.batch_flatten(x),
        "one_hot": K.one_hot(ints, 4),
        "temporal_padding": K.temporal_padding(x, (2, 1)),
        "spatial_2d_padding": K.spatial_2d_padding(K.reshape(x, (2, 3, 2, 2)), ((1, 0), (0, 2))),
        "pow": K.pow(K.abs(x), 1.5),
        "round": K.round(x * 3.0),
        "sign": K.sign(x),
        "arange": K.arange(2, 9, 3),
        "bias_add": K.bias_add(x, K.constant(np.float32([1.0, 2.0, 3.0, 4.0]))),
        "pool2d": K.pool2d(
            K.reshape(x, (2, 3, 4, 1)), (2, 2), (1, 2), padding="same", pool_mode="avg"
        ),
        "conv1d": K.conv1d(x, K.constant(_rng_array(10, (2, 4, 3))), padding="causal"),
        "maximum": K.maximum(a, b),
        "sin_cos": K.sin(a) + K.cos(b),
    }
    keys = sorted(out)
    values = K.get_session().run([out[k] for k in keys])
    return {
        "values": dict(zip(keys, values)),
        "shapes": {k: list(K.int_shape(out[k])) for k in keys},
        "backend": K.backend(),
    }


@function
def masked_lstm(tf):
    K = tf.keras
    K.backend.clear_session()
    x = _rng_array(11, (3, 5, 2))
    x[0, 3:] = 0.0
    x[1, 1:] = 0.0
    inp = K.Input((5, 2))
    masked = K.layers.Masking(0.0)(inp)
    seq = K.layers.LSTM(3, return_sequences=True)(masked)
    last = K.layers.GRU(2)(masked)
    model = K.Model(inp, [seq, last])
    _fix(model)
    embed_in = K.Input((4,), dtype="int32")
    emb = K.layers.Embedding(6, 2, mask_zero=True)(embed_in)
    rnn = K.layers.SimpleRNN(2)(emb)
    m2 = K.Model(embed_in, rnn)
    _fix(m2, seed=3)
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]], dtype="int32")
    seq_v, last_v = model.predict(x)
    return {"sequences": seq_v, "last": last_v, "embedding_rnn": m2.predict(ids)}


@function
def reduce_lr_on_plateau(tf):
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(12)
    x = rng.uniform(-1, 1, (32, 3)).astype("float32")
    y = rng.uniform(-1, 1, (32, 1)).astype("float32")
    model = K.Sequential(
        [K.layers.Dense(4, activation="tanh", input_shape=(3,)), K.layers.Dense(1)]
    )
    _fix(model, seed=5)
    model.compile(K.optimizers.SGD(2.0), "mse")
    cb = K.callbacks.ReduceLROnPlateau(
        monitor="loss", factor=0.5, patience=1, cooldown=1, min_lr=0.1
    )
    history = model.fit(x, y, batch_size=8, epochs=8, verbose=0, shuffle=False, callbacks=[cb])
    return {
        "loss": np.array(history.history["loss"], dtype="float64"),
        "lr": np.array(history.history["lr"], dtype="float64"),
    }


def _events(tf, log_dir):
    import glob
    import os

    scalars, histograms, graphs = [], [], 0
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            if event.HasField("graph_def"):
                graphs += 1
            for value in event.summary.value:
                if value.HasField("histo"):
                    histograms.append([int(event.step), value.tag, float(value.histo.num)])
                elif value.HasField("simple_value"):
                    scalars.append([int(event.step), value.tag, float(value.simple_value)])
    return scalars, histograms, graphs


@function
def tensorboard_events(tf):
    import tempfile

    K = tf.keras
    out = {}
    for label, kwargs in (
        ("per_epoch", {"histogram_freq": 1}),
        ("per_batch", {"update_freq": "batch", "write_graph": False}),
        ("per_samples", {"update_freq": 16}),
    ):
        K.backend.clear_session()
        rng = np.random.RandomState(13)
        x = rng.uniform(-1, 1, (24, 3)).astype("float32")
        y = rng.randint(0, 2, (24,)).astype("int64")
        model = K.Sequential([K.layers.Dense(2, activation="softmax", input_shape=(3,))])
        _fix(model, seed=6)
        model.compile(K.optimizers.SGD(0.1), "sparse_categorical_crossentropy", ["acc"])
        log_dir = tempfile.mkdtemp()
        model.fit(
            x,
            y,
            batch_size=8,
            epochs=2,
            verbose=0,
            shuffle=False,
            validation_data=(x[:8], y[:8]),
            callbacks=[K.callbacks.TensorBoard(log_dir=log_dir, **kwargs)],
        )
        scalars, histograms, graphs = _events(tf, log_dir)
        out[label] = {"scalars": scalars, "histograms": histograms, "graph_events": graphs}
    return out


def _event_values(tf, log_dir):
    """Every summary value of the log directory's event files as plain data: histograms by
    count (and sum, for weights), images by size and decoded pixel sum (PNG bytes depend on
    the encoder). The histograms of layer outputs and gradients are counted only: TF 1.15
    fills them from a different batch from run to run of the same program."""
    import glob
    import io
    import os

    from PIL import Image

    out = []
    for path in sorted(glob.glob(os.path.join(log_dir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            for value in event.summary.value:
                entry = [int(event.step), value.tag]
                if value.HasField("image"):
                    pixels = np.asarray(Image.open(io.BytesIO(value.image.encoded_image_string)))
                    image = value.image
                    entry += ["image", image.width, image.height, image.colorspace]
                    entry += [int(pixels.astype("int64").sum())]
                elif value.HasField("histo"):
                    entry += ["histo", float(value.histo.num)]
                    if not re.search(r"_(out|out_\d+|grad)$", value.tag):
                        entry.append(float(value.histo.sum))
                else:
                    entry += ["scalar", float(value.simple_value)]
                out.append(entry)
    return out


@function
def tensorboard_images_gradients_embeddings(tf):
    """The TensorBoard callback's write_images (weights as images), write_grads (gradient
    histograms) and embeddings (a variable per Embedding layer filled with its outputs for
    embeddings_data, saved each epoch, and the projector's config), histograms written once
    per validation batch of fit's batch size. TF 1.15 leaves the embedding variable
    uninitialized (Keras initializes only its own): the callback here initializes it."""
    import os
    import tempfile

    K = tf.keras

    class InitializingTensorBoard(K.callbacks.TensorBoard):
        def set_model(self, model):
            super().set_model(model)
            made = [v for v in tf.global_variables() if v.name.endswith("_embedding:0")]
            K.backend.get_session().run(tf.variables_initializer(made))

    K.backend.clear_session()
    rng = np.random.RandomState(3)
    x = rng.randint(0, 10, (12, 4)).astype("int32")
    y = rng.randint(0, 2, (12,)).astype("int64")
    model = K.Sequential(
        [
            K.layers.Embedding(10, 3, input_length=4, name="emb"),
            K.layers.Conv1D(2, 2, name="conv"),
            K.layers.Flatten(),
            K.layers.Dense(2, activation="softmax", name="out"),
        ]
    )
    for weight in model.weights:
        shape = K.backend.int_shape(weight)
        K.backend.set_value(weight, rng.uniform(-1, 1, shape).astype("float32"))
    model.compile(K.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
    log_dir = tempfile.mkdtemp()
    callback = InitializingTensorBoard(
        log_dir=log_dir,
        histogram_freq=1,
        write_graph=False,
        write_grads=True,
        write_images=True,
        embeddings_freq=1,
        embeddings_data=x[:5],
        embeddings_metadata="meta.tsv",
        batch_size=2,
        profile_batch=0,
    )
    validation = (x[:6], y[:6])
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False,
              validation_data=validation, callbacks=[callback])  # fmt: skip
    with open(os.path.join(log_dir, "projector_config.pbtxt")) as f:
        projector = f.read()
    latest = tf.train.latest_checkpoint(log_dir)
    reader = tf.train.NewCheckpointReader(latest)
    saved = {k: reader.get_tensor(k) for k in sorted(reader.get_variable_to_shape_map())}
    return {
        "files": sorted(n for n in os.listdir(log_dir) if not n.startswith("events.")),
        "projector_config": projector,
        "latest_checkpoint": os.path.basename(latest),
        "saved": saved,
        "events": _event_values(tf, log_dir),
    }


@function
def tensorboard_options_without_histograms(tf):
    """write_images and write_grads without histogram_freq write nothing more, and
    embeddings_freq without embeddings_data fails at the first epoch's end."""
    import os
    import tempfile

    K = tf.keras
    K.backend.clear_session()
    model = K.Sequential([K.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")])
    model.compile("sgd", "mse")
    x, y = np.ones((4, 2), "float32"), np.ones((4, 1), "float32")
    out = {}
    for label, kwargs in (
        ("images_and_grads", {"write_images": True, "write_grads": True}),
        ("embeddings_without_data", {"embeddings_freq": 1}),
    ):
        log_dir = tempfile.mkdtemp()
        callback = K.callbacks.TensorBoard(
            log_dir=log_dir, write_graph=False, profile_batch=0, **kwargs
        )
        try:
            model.fit(x, y, epochs=2, verbose=0, callbacks=[callback])
            error = None
        except ValueError as e:
            error = str(e)
        events = [e[:3] for e in _event_values(tf, log_dir)]
        files = sorted(n for n in os.listdir(log_dir) if not n.startswith("events."))
        out[label] = {"error": error, "events": events, "files": files}
    return out


def _optimizer_fit(tf, optimizer):
    K = tf.keras
    K.backend.clear_session()
    rng = np.random.RandomState(14)
    x = rng.uniform(-1, 1, (24, 3)).astype("float32")
    y = rng.uniform(-1, 1, (24, 2)).astype("float32")
    model = K.Sequential(
        [K.layers.Dense(4, activation="tanh", input_shape=(3,)), K.layers.Dense(2)]
    )
    _fix(model, seed=8)
    model.compile(optimizer(K), "mse")
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
    return {
        "loss": np.array(history.history["loss"], dtype="float64"),
        "weights": model.get_weights(),
        "optimizer_weight_names": sorted(w.name for w in model.optimizer.weights),
        "config": {
            k: v for k, v in model.optimizer.get_config().items() if not isinstance(v, dict)
        },
    }


@function
def optimizers(tf):
    S = tf.keras.optimizers.schedules
    cases = {
        "adadelta": lambda K: K.optimizers.Adadelta(1.0, rho=0.9),
        "adamax": lambda K: K.optimizers.Adamax(0.05),
        "nadam": lambda K: K.optimizers.Nadam(0.02),
        "ftrl": lambda K: K.optimizers.Ftrl(0.1, l1_regularization_strength=0.01),
        "ftrl_shrinkage": lambda K: K.optimizers.Ftrl(
            0.1, l2_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.02
        ),
        "sgd_exponential_decay": lambda K: K.optimizers.SGD(S.ExponentialDecay(0.2, 3, 0.5)),
        "adam_piecewise": lambda K: K.optimizers.Adam(
            S.PiecewiseConstantDecay([2, 5], [0.05, 0.01, 0.001])
        ),
        "sgd_polynomial_cycle": lambda K: K.optimizers.SGD(
            S.PolynomialDecay(0.3, 4, 0.01, power=2.0, cycle=True)
        ),
        "rmsprop_inverse_time": lambda K: K.optimizers.RMSprop(
            S.InverseTimeDecay(0.05, 2, 0.5, staircase=True)
        ),
        "sgd_decay_nesterov": lambda K: K.optimizers.SGD(
            0.1, momentum=0.8, nesterov=True, decay=0.1
        ),
    }
    return {name: _optimizer_fit(tf, fn) for name, fn in sorted(cases.items())}


@function
def schedules(tf):
    K = tf.keras
    K.backend.clear_session()
    S = K.optimizers.schedules
    step = tf.placeholder(tf.int64, [])
    made = {
        "exponential": S.ExponentialDecay(0.5, 3, 0.9),
        "exponential_staircase": S.ExponentialDecay(0.5, 3, 0.9, staircase=True),
        "piecewise": S.PiecewiseConstantDecay([2, 5], [1.0, 0.5, 0.1]),
        "polynomial": S.PolynomialDecay(1.0, 6, 0.1, power=0.5),
        "polynomial_cycle": S.PolynomialDecay(1.0, 4, 0.1, cycle=True),
        "inverse_time": S.InverseTimeDecay(1.0, 2, 0.3),
    }
    keys = sorted(made)
    tensors = [made[k](step) for k in keys]
    sess = K.backend.get_session()
    values = {k: [] for k in keys}
    for s in range(0, 10):
        for k, v in zip(keys, sess.run(tensors, {step: s})):
            values[k].append(float(v))
    return {
        "values": {k: np.array(v) for k, v in values.items()},
        "configs": {k: S.serialize(made[k]) for k in keys},
    }


@function
def metrics(tf):
    K = tf.keras
    K.backend.clear_session()
    M = K.metrics
    rng = np.random.RandomState(15)
    y_true = rng.randint(0, 2, (20, 1)).astype("float32")
    y_score = rng.uniform(0, 1, (20, 1)).astype("float32")
    weights = rng.uniform(0, 2, (20,)).astype("float32")
    multi_true = np.eye(4, dtype="float32")[rng.randint(0, 4, 12)]
    multi_pred = rng.uniform(0, 1, (12, 4)).astype("float32")
    reg_true = rng.uniform(1, 2, (6, 3)).astype("float32")
    reg_pred = rng.uniform(1, 2, (6, 3)).astype("float32")
    classes_true = rng.randint(0, 3, (10,)).astype("int32")
    classes_pred = rng.randint(0, 3, (10,)).astype("int32")
    made = {
        "tp": (M.TruePositives(), y_true, y_score, None),
        "tn_thresholds": (M.TrueNegatives(thresholds=[0.2, 0.7]), y_true, y_score, None),
        "fp_weighted": (M.FalsePositives(0.3), y_true, y_score, weights),
        "fn": (M.FalseNegatives(), y_true, y_score, None),
        "precision": (M.Precision(), y_true, y_score, None),
        "precision_thresholds": (M.Precision(thresholds=[0.1, 0.5, 0.9]), y_true, y_score, weights),
        "precision_top_k": (M.Precision(top_k=2), multi_true, multi_pred, None),
        "recall_class_id": (M.Recall(class_id=1), multi_true, multi_pred, None),
        "recall": (M.Recall(0.4), y_true, y_score, None),
        "auc_roc": (M.AUC(num_thresholds=50), y_true, y_score, None),
        "auc_pr": (M.AUC(curve="PR"), y_true, y_score, weights),
        "auc_roc_minoring": (
            M.AUC(summation_method="minoring", num_thresholds=20),
            y_true,
            y_score,
            None,
        ),
        "auc_pr_majoring": (M.AUC(curve="PR", summation_method="majoring"), y_true, y_score, None),
        "sensitivity_at_specificity": (M.SensitivityAtSpecificity(0.6), y_true, y_score, None),
        "specificity_at_sensitivity": (
            M.SpecificityAtSensitivity(0.7, num_thresholds=30),
            y_true,
            y_score,
            None,
        ),
        "mean_iou": (M.MeanIoU(3), classes_true, classes_pred, None),
        "mean_relative_error": (M.MeanRelativeError(normalizer=reg_true), reg_true, reg_pred, None),
        "categorical_hinge": (M.CategoricalHinge(), multi_true, multi_pred, None),
        "cosine_similarity": (M.CosineSimilarity(), reg_true, reg_pred, None),
    }
    keys = sorted(made)
    results = []
    for k in keys:
        metric, t, p, w = made[k]
        results.append(metric(K.backend.constant(t), K.backend.constant(p), sample_weight=w))
    mean_tensor = M.MeanTensor()
    mt = mean_tensor(K.backend.constant(reg_pred))
    sess = K.backend.get_session()
    sess.run(tf.local_variables_initializer())
    values = sess.run([*results, mt])
    names = {k: sorted(v.name for v in made[k][0].variables) for k in keys}
    return {
        "values": dict(zip(keys, values[:-1])),
        "mean_tensor": values[-1],
        "variables": names,
    }


@function
def moving_average_update(tf):
    K = tf.keras
    K.backend.clear_session()
    x = K.backend.variable(np.float32([1.0, 2.0, 3.0]), name="avg")
    value = tf.placeholder(tf.float32, [3])
    update = K.backend.moving_average_update(x, value, 0.9)
    sess = K.backend.get_session()
    sess.run(tf.global_variables_initializer())
    seen = []
    for step in range(3):
        sess.run(update, {value: np.float32([step, 2 * step, -step])})
        seen.append(sess.run(x))
    return {"values": seen, "variables": [v.name for v in tf.global_variables()]}


@function
def fit_generator(tf):
    K = tf.keras

    class Batches(K.utils.Sequence):
        def __init__(self, x, y, size):
            self.x, self.y, self.size = x, y, size

        def __len__(self):
            return int(np.ceil(len(self.x) / float(self.size)))

        def __getitem__(self, i):
            part = slice(i * self.size, (i + 1) * self.size)
            return self.x[part], self.y[part]

    def endless(x, y, size):
        while True:
            for i in range(0, len(x), size):
                yield x[i : i + size], y[i : i + size]

    rng = np.random.RandomState(16)
    x = rng.uniform(-1, 1, (22, 3)).astype("float32")
    y = rng.randint(0, 3, (22,)).astype("int64")
    out = {}
    for label in ("sequence", "generator", "fit_sequence"):
        K.backend.clear_session()
        model = K.Sequential(
            [
                K.layers.Dense(5, activation="relu", input_shape=(3,)),
                K.layers.Dense(3, activation="softmax"),
            ]
        )
        _fix(model, seed=9)
        model.compile(K.optimizers.SGD(0.3), "sparse_categorical_crossentropy", ["acc"])
        if label == "sequence":
            history = model.fit_generator(
                Batches(x, y, 8),
                epochs=3,
                verbose=0,
                shuffle=False,
                validation_data=Batches(x[:10], y[:10], 4),
            )
        elif label == "generator":
            history = model.fit_generator(
                endless(x, y, 8),
                steps_per_epoch=3,
                epochs=3,
                verbose=0,
                validation_data=(x[:10], y[:10]),
            )
        else:
            history = model.fit(Batches(x, y, 6), epochs=2, verbose=0, shuffle=False)
        out[label] = {
            "history": {k: np.array(v, dtype="float64") for k, v in history.history.items()},
            "evaluate": np.array(model.evaluate_generator(Batches(x, y, 5)), dtype="float64"),
            "predict": model.predict_generator(Batches(x, y, 7)),
            "weights": model.get_weights(),
        }
    return out


@function
def preprocessing(tf):
    P = tf.keras.preprocessing
    seqs = [[1, 2, 3], [4], [], [5, 6, 7, 8, 9]]
    texts = ["The cat sat on the mat.", "The dog sat down!", "A cat, a dog; a bird?", "cat"]
    tok = P.text.Tokenizer(num_words=6, oov_token="<unk>")
    tok.fit_on_texts(texts)
    plain = P.text.Tokenizer()
    plain.fit_on_texts(texts)
    return {
        "pre": P.sequence.pad_sequences(seqs, maxlen=4),
        "post": P.sequence.pad_sequences(seqs, maxlen=3, padding="post", truncating="post"),
        "float": P.sequence.pad_sequences(seqs, dtype="float32", value=-1.0),
        "words": P.text.text_to_word_sequence("Hello, World! it's  me"),
        "word_index": {str(k): v for k, v in tok.word_index.items()},
        "sequences": tok.texts_to_sequences([*texts, "an unseen bird cat"]),
        "texts": tok.sequences_to_texts([[1, 2, 3, 9]]),
        "binary": plain.texts_to_matrix(texts, mode="binary"),
        "count": plain.texts_to_matrix(texts, mode="count"),
        "freq": plain.texts_to_matrix(texts, mode="freq"),
        "tfidf": plain.texts_to_matrix(texts, mode="tfidf"),
        "config_keys": sorted(json.loads(tok.to_json())["config"]),
        "sampling_table": P.sequence.make_sampling_table(8),
    }


@function
def timeseries_generator(tf):
    """TimeseriesGenerator's windows and targets (strided, sampled, reversed, shuffled from
    np.random, bounded by start/end), its length and config, its errors, and a model fitted
    on it as a Sequence."""
    K = tf.keras
    G = K.preprocessing.sequence.TimeseriesGenerator
    data = np.arange(50, dtype="float32").reshape(25, 2)
    targets = np.arange(100, 125)
    out = {}
    for label, kwargs in {
        "plain": dict(length=3, batch_size=4),
        "strided": dict(length=4, sampling_rate=2, stride=3, batch_size=2),
        "bounded": dict(length=2, start_index=5, end_index=15, batch_size=3),
        "reversed": dict(length=3, reverse=True, batch_size=5),
    }.items():
        gen = G(data, targets, **kwargs)
        out[label] = {
            "len": len(gen),
            "batches": [list(gen[i]) for i in range(len(gen))],
            "config": gen.get_config(),
        }
    np.random.seed(3)
    shuffled = G(data, targets, length=3, shuffle=True, batch_size=4)
    out["shuffled"] = [list(shuffled[i]) for i in range(3)]
    out["json"] = json.loads(G(list(range(6)), list(range(6)), length=2).to_json())
    errors = {}
    for label, args in {
        "lengths": (data, targets[:3], 2),
        "too_long": (data, targets, 30),
    }.items():
        try:
            G(*args)
        except ValueError as e:
            errors[label] = str(e)
    out["errors"] = errors
    K.backend.clear_session()
    model = K.Sequential(
        [K.layers.Flatten(input_shape=(3, 2)), K.layers.Dense(1, kernel_initializer="ones")]
    )
    model.compile(K.optimizers.SGD(1e-4), "mse")
    history = model.fit_generator(
        G(data / 50.0, targets / 100.0, length=3, batch_size=5), epochs=2, shuffle=False, verbose=0
    )
    out["loss"] = np.array(history.history["loss"], dtype="float64")
    out["weights"] = model.get_weights()
    return out


@function
def compile_metric_shapes(tf):
    """Metric functions returning a scalar (K.mean inside) and per-time-step accuracies."""
    K = tf.keras

    def scalar_accuracy(y_true, y_pred):
        return K.backend.mean(K.backend.equal(y_true, K.backend.cast(y_pred < 0.5, y_true.dtype)))

    rng = np.random.RandomState(17)
    out = {}
    K.backend.clear_session()
    x = rng.uniform(-1, 1, (20, 3)).astype("float32")
    y = rng.randint(0, 2, (20, 1)).astype("float32")
    model = K.Sequential([K.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    _fix(model, seed=10)
    model.compile(K.optimizers.SGD(0.1), "mse", metrics=[scalar_accuracy])
    h = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    out["scalar"] = {k: np.array(v, dtype="float64") for k, v in h.history.items()}
    K.backend.clear_session()
    xs = rng.uniform(-1, 1, (12, 4, 3)).astype("float32")
    ys = np.eye(3, dtype="float32")[rng.randint(0, 3, (12, 4))]
    seq = K.Sequential(
        [
            K.layers.LSTM(5, return_sequences=True, input_shape=(4, 3)),
            K.layers.TimeDistributed(K.layers.Dense(3, activation="softmax")),
        ]
    )
    _fix(seq, seed=11)
    seq.compile(K.optimizers.Adam(0.05), "categorical_crossentropy", metrics=["accuracy"])
    h = seq.fit(xs, ys, batch_size=5, epochs=2, verbose=0, shuffle=False)
    out["sequence"] = {k: np.array(v, dtype="float64") for k, v in h.history.items()}
    out["sequence_evaluate"] = np.array(seq.evaluate(xs, ys, verbose=0), dtype="float64")
    return out
