"""tf.layers programs, written once against the TF1 API and run twice: by record_layers.py
with TensorFlow 1.15 and by tests/unit/test_layers_reference.py with tfcluster. Each case
builds its own graph and returns plain data: the ops it made (name and type), its variables
(names, shapes, dtypes, collections), layer names and scopes, losses and UPDATE_OPS, and, with
every variable set to fixed values, its outputs, their gradients and what update ops do.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES)


def arr(seed, shape, low=-1.0, high=1.0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def error(fn):
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def ops(g):
    return [[op.name, op.type] for op in g.get_operations()]


def names(xs):
    return [x.name for x in xs]


def describe(tf, g):
    """Variables, their collections, losses and updates of graph g."""
    with g.as_default():
        return {
            "variables": [
                [v.name, v.shape.as_list(), v.dtype.base_dtype.name] for v in tf.global_variables()
            ],
            "trainable": names(tf.trainable_variables()),
            "model": names(tf.model_variables()),
            "regularization_losses": names(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)),
            "update_ops": names(tf.get_collection(tf.GraphKeys.UPDATE_OPS)),
        }


def evaluate(tf, g, outputs, feed=None, wrt=(), run_updates=False, run=True):
    """Everything describe() gives, plus the ops made so far, and with every variable set to
    fixed values: the outputs, d sum(w * outputs) / d (wrt + trainable variables), and the
    variables after running UPDATE_OPS once (when run_updates). With run=False (graphs TF
    1.15's CPU kernels cannot run: channels-first ones) the graph's description only."""
    out = describe(tf, g)
    out["ops"] = ops(g)
    out["shapes"] = [y.shape.as_list() for y in outputs]
    if not run:
        return out
    feed = feed or {}
    with g.as_default():
        variables = tf.global_variables()
        assigns = [
            tf.assign(
                v, arr(200 + i, v.shape.as_list(), -0.5, 0.5, v.dtype.base_dtype.as_numpy_dtype)
            )
            for i, v in enumerate(variables)
        ]
        loss = 0.0
        for i, y in enumerate(outputs):
            shape = [d if d is not None else 1 for d in y.shape.as_list()]
            w = tf.constant(arr(100 + i, shape, 0.5, 1.5, y.dtype.base_dtype.as_numpy_dtype))
            loss = loss + tf.reduce_sum(y * w)
        targets = list(wrt) + tf.trainable_variables()
        grads = [gr for gr in tf.gradients(loss, targets) if gr is not None]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.Session(graph=g) as s:
            s.run(tf.global_variables_initializer())
            s.run(assigns)
            out["values"] = s.run(list(outputs), feed)
            out["grads"] = s.run(grads, feed)
            if run_updates:
                s.run(updates, feed)
                out["after_updates"] = s.run(variables)
    return out


# ---- dense ------------------------------------------------------------------------------------
@case
def dense_functional_and_class(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        a = tf.layers.dense(x, 3, activation=tf.nn.relu)
        b = tf.layers.dense(a, 2, name="logits", use_bias=False)
        layer = tf.layers.Dense(
            5, activation=tf.tanh, kernel_regularizer=tf.nn.l2_loss, bias_regularizer=tf.nn.l2_loss
        )
        before = layer.name
        c = layer(x)
        d = layer.apply(x)
        out = evaluate(tf, g, [a, b, c, d], {x: arr(1, (2, 4))}, wrt=[x])
        out["layer"] = [
            before,
            layer.name,
            layer.scope_name,
            names(layer.trainable_weights),
            names(layer.weights),
            names(layer.losses),
            len(layer.updates),
            layer.built,
            layer.dtype,
        ]
        return out


@case
def dense_reuse_and_scopes(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        with tf.variable_scope("model"):
            a = tf.layers.dense(x, 3, name="fc")
        with tf.variable_scope("model", reuse=True):
            b = tf.layers.dense(x, 3, name="fc")
        c = tf.layers.dense(x, 3, name="shared")
        d = tf.layers.dense(x, 3, name="shared", reuse=True)
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            e = tf.layers.dense(x, 2, name="h")
            f = tf.layers.dense(x, 2, name="h")
        with tf.variable_scope("outer"):
            h = tf.layers.dense(x, 2)
            i = tf.layers.dense(x, 2)
        again = error(lambda: tf.layers.dense(x, 3, name="shared"))
        out = evaluate(tf, g, [a, b, c, d, e, f, h, i], {x: arr(2, (3, 4))})
        out["again"] = again
        return out


@case
def dense_regularizers_and_constraints(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(3, (2, 4)))
        layer = tf.layers.Dense(
            3,
            kernel_regularizer=tf.keras.regularizers.l1_l2(0.01, 0.02),
            activity_regularizer=tf.nn.l2_loss,
            kernel_constraint=lambda w: tf.clip_by_value(w, -0.1, 0.1),
            name="reg",
        )
        y = layer(x)
        out = describe(tf, g)
        out["ops"] = ops(g)
        opt = tf.train.GradientDescentOptimizer(0.5)
        total = tf.reduce_sum(y) + tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
        train = opt.minimize(total)
        with tf.Session(graph=g) as s:
            s.run(tf.global_variables_initializer())
            s.run(tf.assign(layer.kernel, arr(4, (4, 3), -0.5, 0.5)))
            out["losses"] = s.run(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
            s.run(train)
            out["kernel_after"] = s.run(layer.kernel)
        return out


@case
def dense_rank3_inputs(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
        y = tf.layers.dense(x, 2)
        z = tf.layers.dense(tf.constant(arr(5, (2, 3, 4))), 2, activation=tf.nn.relu)
        return evaluate(tf, g, [y, z], {x: arr(6, (2, 3, 4))}, wrt=[x])


@case
def dense_float64_and_trainable_false(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(7, (2, 3), dtype=np.float64))
        layer = tf.layers.Dense(2, trainable=False, name="frozen")
        y = layer(x)
        out = evaluate(tf, g, [y], wrt=[x])
        out["layer"] = [names(layer.trainable_weights), names(layer.non_trainable_weights)]
        return out


# ---- convolutions -------------------------------------------------------------------------------
def _conv_case(build, shape, seed, feed_batch=None, run=True):
    def fn(tf):
        g = tf.Graph()
        with g.as_default():
            if feed_batch:
                x = tf.placeholder(tf.float32, [None, *list(shape[1:])], name="x")
                feed = {x: arr(seed, shape)}
            else:
                x = tf.constant(arr(seed, shape))
                feed = None
            outputs = build(tf, x)
            return evaluate(tf, g, outputs, feed, wrt=[x], run=run)

    return fn


CASES["conv2d_basic"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu),
        tf.layers.conv2d(x, 2, (3, 2), strides=2, padding="same", name="c2"),
    ],
    (2, 8, 7, 3),
    10,
    feed_batch=True,
)
CASES["conv2d_dilated"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv2d(x, 4, 3, dilation_rate=2, padding="same"),
        tf.layers.conv2d(x, 2, 2, dilation_rate=(2, 1)),
    ],
    (2, 9, 8, 3),
    11,
    feed_batch=True,
)
CASES["conv2d_channels_first"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv2d(x, 4, 3, data_format="channels_first", padding="same", use_bias=True)
    ],
    (2, 3, 6, 5),
    12,
    run=False,
)
CASES["conv1d_cases"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv1d(x, 4, 3),
        tf.layers.conv1d(x, 2, 2, padding="causal", dilation_rate=2),
        tf.layers.conv1d(x, 3, 3, strides=2, padding="same"),
    ],
    (2, 9, 3),
    13,
    feed_batch=True,
)
CASES["conv3d_cases"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv3d(x, 2, 2, activation=tf.nn.relu),
        tf.layers.conv3d(x, 3, (2, 3, 2), strides=(1, 2, 1), padding="same"),
    ],
    (2, 4, 5, 4, 2),
    14,
)
CASES["conv2d_transpose_cases"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv2d_transpose(x, 2, 3, strides=2, padding="same"),
        tf.layers.conv2d_transpose(
            x, 3, (3, 2), strides=(2, 1), padding="valid", activation=tf.nn.relu
        ),
    ],
    (2, 4, 5, 3),
    15,
    feed_batch=True,
)
CASES["conv2d_transpose_channels_first"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv2d_transpose(x, 2, 3, strides=2, padding="same", data_format="channels_first")
    ],
    (2, 3, 4, 5),
    16,
)
CASES["conv3d_transpose_cases"] = _conv_case(
    lambda tf, x: [
        tf.layers.conv3d_transpose(x, 2, 2, strides=2, padding="same"),
        tf.layers.conv3d_transpose(x, 3, (2, 3, 2), padding="valid"),
    ],
    (2, 3, 4, 3, 2),
    17,
)
CASES["separable_conv_cases"] = _conv_case(
    lambda tf, x: [
        tf.layers.separable_conv2d(x, 4, 3, depth_multiplier=2, padding="same"),
        tf.layers.separable_conv2d(x, 2, (2, 3), strides=2),
        tf.layers.separable_conv2d(x, 3, 3, dilation_rate=2, padding="same"),
    ],
    (2, 8, 7, 3),
    18,
    feed_batch=True,
)
CASES["separable_conv1d_cases"] = _conv_case(
    lambda tf, x: [
        tf.layers.separable_conv1d(x, 4, 3, depth_multiplier=2),
        tf.layers.separable_conv1d(x, 2, 2, padding="same", strides=2),
    ],
    (2, 9, 3),
    19,
)


# ---- pooling -----------------------------------------------------------------------------------
CASES["pooling_2d"] = _conv_case(
    lambda tf, x: [
        tf.layers.max_pooling2d(x, 2, 2),
        tf.layers.average_pooling2d(x, 3, 2, padding="same"),
        tf.layers.MaxPooling2D((3, 2), (1, 2), name="mp")(x),
    ],
    (2, 7, 6, 3),
    20,
    feed_batch=True,
)
CASES["pooling_1d_3d"] = _conv_case(
    lambda tf, x: [
        tf.layers.max_pooling3d(x, 2, 2, padding="same"),
        tf.layers.average_pooling3d(x, (2, 3, 2), (1, 1, 2)),
        tf.layers.max_pooling1d(tf.reshape(x, [2, 80, 2]), 3, 2),
        tf.layers.average_pooling1d(tf.reshape(x, [2, 80, 2]), 2, 2, padding="same"),
    ],
    (2, 4, 5, 4, 2),
    21,
)
CASES["pooling_channels_first"] = _conv_case(
    lambda tf, x: [
        tf.layers.max_pooling2d(x, 2, 2, data_format="channels_first"),
        tf.layers.average_pooling1d(tf.reshape(x, [2, 3, 30]), 3, 2, data_format="channels_first"),
        tf.layers.max_pooling3d(tf.reshape(x, [2, 3, 5, 3, 2]), 2, 1, data_format="channels_first"),
    ],
    (2, 3, 6, 5),
    22,
    run=False,
)


# ---- flatten and dropout ----------------------------------------------------------------------
@case
def flatten_cases(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4, 2], name="x")
        a = tf.layers.flatten(x)
        b = tf.layers.flatten(x, data_format="channels_first")
        c = tf.layers.Flatten()(tf.constant(arr(23, (2, 5))))
        out = evaluate(tf, g, [a, b, c], {x: arr(24, (2, 3, 4, 2))}, wrt=[x])
        out["shapes"] = [a.shape.as_list(), b.shape.as_list(), c.shape.as_list()]
        return out


@case
def dropout_python_training(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.ones((200, 50), np.float32))
        off = tf.layers.dropout(x, 0.4)
        on = tf.layers.dropout(x, 0.4, training=True, seed=3)
        shaped = tf.layers.Dropout(0.5, noise_shape=[None, 1], seed=4)(x, training=True)
        out = describe(tf, g)
        out["ops"] = ops(g)
        with tf.Session(graph=g) as s:
            o, n, sh = s.run([off, on, shaped])
        kept = n[n > 0]
        out["off"] = o
        out["on_values"] = sorted(set(np.round(n.reshape(-1), 5).tolist()))
        out["on_fraction_kept_near"] = bool(abs(kept.size / n.size - 0.6) < 0.03)
        out["shaped_rows_constant"] = bool(np.all(sh == sh[:, :1]))
        out["shapes"] = [on.shape.as_list(), shaped.shape.as_list()]
        return out


@case
def dropout_tensor_training(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.ones((100, 20), np.float32))
        training = tf.placeholder_with_default(False, [], name="training")
        y = tf.layers.dropout(x, 0.25, training=training)
        out = describe(tf, g)
        out["ops"] = ops(g)
        with tf.Session(graph=g) as s:
            out["off"] = s.run(y)
            on = s.run(y, {training: True})
        out["on_values"] = sorted(set(np.round(on.reshape(-1), 5).tolist()))
        out["shape"] = y.shape.as_list()
        return out


# ---- batch normalization ------------------------------------------------------------------------
def _bn_case(shape, seed, feed=False, run_updates=True, training=True, run=True, **kwargs):
    def fn(tf):
        g = tf.Graph()
        with g.as_default():
            if feed:
                x = tf.placeholder(tf.float32, [None, *list(shape[1:])], name="x")
                feeds = {x: arr(seed, shape)}
            else:
                x = tf.constant(arr(seed, shape))
                feeds = {}
            t = training
            if training == "tensor":
                t = tf.placeholder(tf.bool, [], name="training")
                feeds[t] = True
            y = tf.layers.batch_normalization(x, training=t, **kwargs)
            return evaluate(tf, g, [y], feeds, wrt=[x], run_updates=run_updates, run=run)

    return fn


CASES["batch_norm_fused_training"] = _bn_case((4, 3, 5, 2), 30, feed=True)
CASES["batch_norm_fused_inference"] = _bn_case((4, 3, 5, 2), 31, training=False)
CASES["batch_norm_fused_nchw"] = _bn_case((4, 2, 3, 5), 32, axis=1, momentum=0.9, run=False)
CASES["batch_norm_fused_tensor_training"] = _bn_case((4, 3, 5, 2), 33, training="tensor")
CASES["batch_norm_2d_training"] = _bn_case((6, 3), 34, feed=True, epsilon=0.01)
CASES["batch_norm_2d_inference"] = _bn_case((6, 3), 35, training=False)
CASES["batch_norm_2d_tensor_training"] = _bn_case((6, 3), 36, training="tensor")
CASES["batch_norm_not_fused"] = _bn_case((4, 3, 5, 2), 37, fused=False, center=False)
CASES["batch_norm_no_scale_fused"] = _bn_case((4, 3, 5, 2), 38, scale=False)
CASES["batch_norm_3d_axis1"] = _bn_case((4, 3, 5), 39, axis=1)
CASES["batch_norm_renorm"] = _bn_case(
    (8, 3), 40, renorm=True, renorm_clipping={"rmax": 1.5, "rmin": 0.5, "dmax": 0.2}
)
CASES["batch_norm_virtual_batch"] = _bn_case((8, 3, 2), 41, virtual_batch_size=2)


@case
def batch_norm_regularizers_and_names(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(43, (4, 3, 3, 2)))
        layer = tf.layers.BatchNormalization(
            gamma_regularizer=tf.nn.l2_loss,
            beta_regularizer=tf.keras.regularizers.l1(0.1),
            name="bn",
        )
        y = layer(x, training=True)
        y2 = layer(x)
        out = evaluate(tf, g, [y, y2], run_updates=True)
        out["layer"] = [
            layer.name,
            layer.scope_name,
            names(layer.trainable_weights),
            names(layer.non_trainable_weights),
            names(layer.updates),
        ]
        return out


# ---- the base Layer and errors -------------------------------------------------------------------
@case
def custom_layer_subclass(tf):
    class Scale(tf.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.input_spec = tf.layers.InputSpec(min_ndim=2)

        def build(self, input_shape):
            self.w = self.add_weight(
                "w",
                [input_shape[-1]],
                initializer=tf.constant_initializer(2.0),
                regularizer=tf.nn.l2_loss,
            )
            self.count = self.add_weight("count", [], dtype=tf.int32, trainable=False)
            self.built = True

        def call(self, inputs):
            self.add_update(tf.assign_add(self.count, 1))
            self.add_loss(tf.reduce_mean(inputs))
            return inputs * self.w

    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(50, (2, 3)))
        layer = Scale(name="scale")
        y = layer(x)
        out = evaluate(tf, g, [y], wrt=[x], run_updates=True)
        out["layer"] = [
            layer.name,
            names(layer.trainable_weights),
            names(layer.non_trainable_weights),
            names(layer.losses),
            names(layer.updates),
        ]
        out["rank_error"] = error(lambda: layer(tf.constant([1.0, 2.0])))
        return out


@case
def layer_errors(tf):
    g = tf.Graph()
    with g.as_default():
        x4 = tf.placeholder(tf.float32, [None, 5, 5, 3])
        x2 = tf.placeholder(tf.float32, [None, 3])
        conv = tf.layers.Conv2D(2, 3)
        conv(x4)
        dense = tf.layers.Dense(2)
        dense(x2)
        return {
            "conv_rank": error(lambda: tf.layers.conv2d(x2, 2, 3)),
            "conv_channels_unknown": error(
                lambda: tf.layers.conv2d(tf.placeholder(tf.float32, [None, 5, 5, None]), 2, 3)
            ),
            "conv_channels_changed": error(
                lambda: conv(tf.placeholder(tf.float32, [None, 5, 5, 4]))
            ),
            "dense_rank1": error(lambda: tf.layers.dense(tf.placeholder(tf.float32, [3]), 2)),
            "dense_last_unknown": error(
                lambda: tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2)
            ),
            "dense_int": error(lambda: tf.layers.dense(tf.placeholder(tf.int32, [None, 3]), 2)),
            "dense_dim_changed": error(lambda: dense(tf.placeholder(tf.float32, [None, 4]))),
            "pool_strides_none": error(lambda: tf.layers.max_pooling2d(x4, 2, None)),
            "pool_rank": error(lambda: tf.layers.max_pooling2d(x2, 2, 2)),
            "bad_padding": error(lambda: tf.layers.conv2d(x4, 2, 3, padding="full")),
            "bad_data_format": error(lambda: tf.layers.conv2d(x4, 2, 3, data_format="nhwc")),
            "bad_kernel_size": error(lambda: tf.layers.conv2d(x4, 2, (3, 3, 3))),
            "causal_conv2d": error(lambda: tf.layers.conv2d(x4, 2, 3, padding="causal")),
            "bn_bad_axis": error(lambda: tf.layers.batch_normalization(x2, axis=3)),
            "dropout_bad_rate": error(lambda: tf.layers.dropout(x2, 1.5, training=True)),
            "scope_name_unbuilt": error(lambda: tf.layers.Dense(2).scope_name),
            "unknown_kwarg": error(lambda: tf.layers.Dense(2, foo=1)),
        }


@case
def keras_style_layers(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(arr(51, (2, 3)))
        with tf.layers.experimental.keras_style_scope():
            a = tf.layers.Dense(2)
            b = tf.layers.Dense(2)
            ya, yb = a(x), b(x)
        out = evaluate(tf, g, [ya, yb])
        out["names"] = [a.name, b.name]
        out["scope_arg"] = error(lambda: _keras_style_scope_arg(tf))
        return out


def _keras_style_scope_arg(tf):
    with tf.layers.experimental.keras_style_scope():
        tf.layers.Dense(2, _scope="s")


# ---- an end-to-end training run ---------------------------------------------------------------
@case
def cnn_training_steps(tf):
    g = tf.Graph()
    with g.as_default():
        images = tf.placeholder(tf.float32, [None, 12, 12, 1], name="images")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        training = tf.placeholder_with_default(False, [], name="training")
        net = tf.layers.conv2d(images, 4, 3, padding="same", activation=tf.nn.relu)
        net = tf.layers.max_pooling2d(net, 2, 2)
        net = tf.layers.batch_normalization(net, training=True)
        net = tf.layers.conv2d(net, 6, 3, activation=tf.nn.relu)
        net = tf.layers.average_pooling2d(net, 2, 2)
        net = tf.layers.flatten(net)
        net = tf.layers.dense(net, 8, activation=tf.nn.relu)
        net = tf.layers.dropout(net, 0.5, training=training)
        logits = tf.layers.dense(net, 3)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
        out = describe(tf, g)
        out["ops"] = [o for o in ops(g) if not o[0].startswith(("gradients", "Adam", "beta"))]
        variables = tf.global_variables()
        assigns = [
            tf.assign(v, arr(300 + i, v.shape.as_list(), -0.3, 0.3))
            for i, v in enumerate(variables)
            if v.dtype.base_dtype == tf.float32 and "Adam" not in v.name and "power" not in v.name
        ]
        feed = {
            images: arr(60, (16, 12, 12, 1), 0, 1),
            labels: np.random.RandomState(61).randint(0, 3, 16),
        }
        losses = []
        with tf.Session(graph=g) as s:
            s.run(tf.global_variables_initializer())
            s.run(assigns)
            for _ in range(5):
                losses.append(s.run([loss, train], feed)[0])
            out["losses"] = np.array(losses)
            out["final"] = s.run(logits, feed)
        return out
