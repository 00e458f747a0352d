"""Behaviours that TF1 programs of deep-learning books (Keras models fed arrays of the wrong
shape, hand-made losses fed mismatched logits and labels, queue-fed input pipelines with a
graph seed) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_book_sweep.py and on tfcluster by tests/unit/test_book_sweep.py.
Python 3.7 code."""

from __future__ import annotations

import threading
import time

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import error
except ImportError:
    from case_tools import error

_LOSSES = ("mse", "categorical_crossentropy", "mae", "sparse_categorical_crossentropy")
# (input array shape, target array shape) against a model of input (None, 2), output (None, 1)
_ARRAYS = (
    ((10, 784), (10, 10)),
    ((10, 2), (10, 10)),
    ((10, 784), (10, 1)),
    ((10, 2, 1), (10, 1)),
    ((10,), (10, 1)),
    ((10, 2), (10,)),
    ((10, 2), (10, 1)),
)
_CALLS = ("fit", "evaluate", "train_on_batch", "test_on_batch", "predict", "predict_on_batch")


def _call(model, call, x, y):
    if call in ("predict", "predict_on_batch"):
        return getattr(model, call)(x)
    if call in ("fit", "evaluate"):
        return getattr(model, call)(x, y, verbose=0)
    return getattr(model, call)(x, y)


def _outcome(fn):
    failed = error(fn)
    if failed is None:
        return "ok"
    return [failed["error"], failed["message"].split(" [[")[0]]


def keras_array_shape_checks(tf):
    """A Sequential model of input (None, 2) and one output, compiled with each loss, given
    arrays of other shapes by each of fit, evaluate, predict and the *_on_batch calls: the
    inputs are checked first ("Error when checking input: expected dense_input to have shape
    (2,) but got array with shape (784,)", or its rank), a flat array counting as a column;
    targets are not held to their output's shape, only mean squared error and the
    cross-entropies compare dimensions; a sparse cross-entropy's labels fail in the kernel."""
    keras = tf.keras
    out = {}
    for loss in _LOSSES:
        with tf.Graph().as_default():
            model = keras.Sequential(
                [keras.layers.Dense(3, input_shape=(2,)), keras.layers.Dense(1)]
            )
            model.compile(loss=loss, optimizer="sgd")
            for xs, ys in _ARRAYS:
                x, y = np.zeros(xs, np.float32), np.zeros(ys, np.float32)
                for call in _CALLS:
                    key = f"{loss} {xs} {ys} {call}"
                    out[key] = _outcome(lambda m=model, c=call, a=x, b=y: _call(m, c, a, b))
    return out


def keras_named_inputs_and_flat_arrays(tf):
    """A two-input functional model: a wrong array is named by its input's name; a model of
    input (None, 1) takes flat arrays as columns (its predictions' shape), one of input
    (None,) refuses them (TF expands every flat array first)."""
    keras = tf.keras
    out = {}
    with tf.Graph().as_default():
        a = keras.Input(shape=(3,), name="left")
        b = keras.Input(shape=(4, 2), name="right")
        merged = keras.layers.concatenate([a, keras.layers.Flatten()(b)])
        model = keras.Model([a, b], keras.layers.Dense(1)(merged))
        model.compile(loss="mse", optimizer="sgd")
        x_good = [np.zeros((5, 3), np.float32), np.zeros((5, 4, 2), np.float32)]
        y = np.zeros((5, 1), np.float32)
        out["good"] = _outcome(lambda: model.train_on_batch(x_good, y))
        out["right_wrong"] = _outcome(
            lambda: model.predict([x_good[0], np.zeros((5, 4, 3), np.float32)])
        )
        out["left_rank"] = _outcome(
            lambda: model.evaluate([np.zeros((5, 3, 1), np.float32), x_good[1]], y, verbose=0)
        )
    with tf.Graph().as_default():
        column = keras.Sequential([keras.layers.Dense(2, input_shape=(1,))])
        column.compile(loss="mse", optimizer="sgd")
        flat = np.arange(6, dtype=np.float32)
        out["column_predict_shape"] = list(column.predict(flat).shape)
        out["column_fit"] = _outcome(
            lambda: column.fit(flat, np.zeros((6, 2), np.float32), verbose=0)
        )
    with tf.Graph().as_default():
        inp = keras.Input(shape=())
        scalar = keras.Model(inp, keras.layers.Lambda(lambda t: t * 2.0)(inp))
        out["scalar_input_predict"] = _outcome(lambda: scalar.predict(np.zeros(4, np.float32)))
    return out


_KERNEL_CASES = {
    "softmax_of_a_scalar": ("softmax", [np.float32(1)]),
    "log_softmax_of_a_scalar": ("log_softmax", [np.float32(1)]),
    "xent_mismatch": ("xent", [np.zeros((10, 3), np.float32), np.zeros((10, 2), np.float32)]),
    "xent_3d": ("xent", [np.zeros((2, 3, 4), np.float32), np.zeros((2, 3, 4), np.float32)]),
    "xent_broadcast_labels": (
        "xent",
        [
            np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32),
            np.array([[0.2, 0.3, 0.5]], np.float32),
        ],
    ),
    "xent_broadcast_logits": (
        "xent",
        [
            np.array([[1.0, 2.0, 0.5]], np.float32),
            np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], np.float32),
        ],
    ),
    "sparse_first_dimension": (
        "sparse_static",
        [np.zeros((10, 1), np.float32), np.zeros((100,), np.int32)],
    ),
    "bias_of_a_vector": ("bias", [np.zeros((3,), np.float32), np.zeros((3,), np.float32)]),
    "bias_2d_biases": ("bias", [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]),
    "bias_too_many": ("bias", [np.zeros((2, 3), np.float32), np.zeros((4,), np.float32)]),
    "bias_too_many_nchw": (
        "bias_nchw",
        [np.zeros((2, 3, 4, 5), np.float32), np.zeros((4,), np.float32)],
    ),
}


def _kernel_graph(tf, kind, values):
    """(output, {placeholder: value}) of one kernel fed values of unknown static shape (the
    sparse case's ranks known, as a Keras loss's are)."""
    if kind == "sparse_static":
        logits = tf.placeholder(tf.float32, [None, values[0].shape[1]])
        labels = tf.placeholder(tf.int32, [None])
        # gen_nn_ops' op itself: the Python wrapper's checks of static shapes left out
        op = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels)
        return op[0], {logits: values[0], labels: values[1]}
    phs = [tf.placeholder(tf.as_dtype(v.dtype)) for v in values]
    if kind == "softmax":
        out = tf.nn.softmax(phs[0])
    elif kind == "log_softmax":
        out = tf.nn.log_softmax(phs[0])
    elif kind == "xent":
        out = tf.nn.softmax_cross_entropy_with_logits_v2(labels=phs[1], logits=phs[0])
    elif kind == "bias":
        out = tf.nn.bias_add(phs[0], phs[1])
    else:
        out = tf.nn.bias_add(phs[0], phs[1], data_format="NCHW")
    return out, dict(zip(phs, values))


def nn_kernel_shape_errors(tf):
    """The InvalidArgumentErrors of Softmax, SoftmaxCrossEntropyWithLogits (whose logits and
    labels broadcast, TF 1.15's kernel), the sparse one and BiasAdd, with TF's shapes written
    [10,1]; and the broadcast losses' values."""
    out = {}
    for name, (kind, values) in sorted(_KERNEL_CASES.items()):
        with tf.Graph().as_default():
            output, feed = _kernel_graph(tf, kind, values)
            with tf.Session() as sess:
                failed = error(lambda o=output, f=feed: sess.run(o, f))
                if failed is None:
                    out[name] = np.asarray(sess.run(output, feed)).tolist()
                else:
                    out[name] = [failed["error"], failed["message"].split(" [[")[0]]
    return out


def _run_pending(sess, fetch, before, feeds_after, pause=0.3):
    """Runs `before` (a list of (op, feed)), then `fetch` in a thread of its own; once that
    waits, runs each of `feeds_after` ((op, feed)) a pause apart until the fetch returns.
    [its value or error, how many of feeds_after ran]."""
    for op, feed in before:
        sess.run(op, feed)
    box = {}

    def fetch_it():
        failed = error(lambda: box.setdefault("value", sess.run(fetch)))
        if failed is not None:
            box["value"] = [failed["error"], failed["message"].split(" [[")[0]]

    thread = threading.Thread(target=fetch_it)
    thread.start()
    time.sleep(pause)
    ran = 0
    for op, feed in feeds_after:
        if not thread.is_alive():
            break
        sess.run(op, feed)
        ran += 1
        time.sleep(pause)
    thread.join(30)
    value = box.get("value")
    return [np.asarray(value).tolist() if not isinstance(value, list) else value, ran]


def shuffle_queue_waiting_dequeue(tf):
    """A seeded RandomShuffleQueue's dequeue_many waiting for elements takes each one as soon
    as the queue holds more than min_after_dequeue (the enqueue that brought it hands it
    over), so each pick is from a queue of the same size: a queue-fed input pipeline's first
    batch (shuffle_batch's dequeue waits while its reader thread fills the queue). An
    enqueue_many hands over its elements once all are in; a close before the batch is full
    puts the taken elements back, last taken first."""
    out = {}
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        q = tf.RandomShuffleQueue(20, 3, [tf.int32], shapes=[[]], seed=7)
        x = tf.placeholder(tf.int32, [])
        many = tf.placeholder(tf.int32, [None])
        enqueue, enqueue_many = q.enqueue([x]), q.enqueue_many([many])
        rest = q.dequeue_up_to(20)
        with tf.Session() as sess:
            first = [(enqueue, {x: i}) for i in range(3)]
            singles = [(enqueue, {x: i}) for i in range(3, 13)]
            out["one_by_one"] = _run_pending(sess, q.dequeue_many(4), first, singles)
            out["one_by_one_size"] = int(sess.run(q.size()))
            out["many_at_once"] = _run_pending(
                sess, q.dequeue_many(4), [], [(enqueue_many, {many: list(range(20, 25))})]
            )
            left = int(sess.run(q.size())) - 3
            drain = [(enqueue, {x: 100 + i}) for i in range(max(0, -left))]
            if left > 0:
                sess.run(q.dequeue_many(left))
            for op, feed in drain:
                sess.run(op, feed)
            close = [(q.close(), None)]
            out["closed_short"] = _run_pending(
                sess,
                q.dequeue_many(6),
                [],
                [(enqueue, {x: 50}), (enqueue, {x: 51}), *close],
            )
            out["after_close"] = np.asarray(sess.run(rest)).tolist()
    return out


def control_dependencies_and_feeds_of_other_graphs(tf):
    """tf.control_dependencies takes graph elements of its own graph (an op's name too): a
    tensor, op or variable of another graph is refused with ValueError "... is not an element
    of this graph." (a Keras Model built on a tensor of a graph that clear_session left), an
    int with TypeError; a feed_dict key that is not a tensor of the graph is TypeError "Cannot
    interpret feed_dict key as Tensor: ..." whatever the reason, a fetch ValueError."""
    out = {}
    first = tf.Graph()
    with first.as_default():
        a = tf.constant(1.0, name="a")
        v = tf.Variable(1.0, name="v")
        old = tf.placeholder(tf.float32, [None, 2], name="old")
    with tf.Graph().as_default():
        b = tf.constant(2.0, name="b")
        c = tf.placeholder(tf.float32, [None, 2], name="c")
        for name, given in (
            ("tensor", a),
            ("op", a.op),
            ("variable", v),
            ("missing_name", "a"),
            ("int", 3),
            ("own_name", "b"),
            ("own_tensor", c),
        ):

            def depend(given=given):
                with tf.control_dependencies([given]):
                    return tf.identity(b)

            failed = error(depend)
            if failed is None:
                out["depends_on_" + name] = [op.name for op in depend().op.control_inputs]
            else:
                out["depends_on_" + name] = [failed["error"], failed["message"]]
        out["keras_function_of_other_graph"] = _outcome(lambda: tf.keras.backend.function([], [a]))
        with tf.Session() as sess:
            runs = {
                "fetch_other": lambda: sess.run(a, {c: np.ones((1, 2))}),
                "feed_other": lambda: sess.run(c, {old: np.ones((1, 2))}),
                "feed_missing_name": lambda: sess.run(c, {"zz:0": 1}),
                "feed_op_name": lambda: sess.run(c, {"b": 1}),
                "feed_int": lambda: sess.run(c, {3: 1}),
            }
            for name, run in sorted(runs.items()):
                out[name] = _outcome(run)
    return out


def _ops_since(graph, first):
    return [
        [op.type, op.name, [t.name for t in op.inputs]] for op in graph.get_operations()[first:]
    ]


def keras_upsampling_graph_and_seeds(tf):
    """tf.keras UpSampling2D (nearest or bilinear, channels last or first) makes TF 1.15's
    ops: the input's Shape sliced and multiplied by the factors, then resize_images_v2's
    ResizeNearestNeighbor / ResizeBilinear (half-pixel centres) in a `resize` scope; so a
    seeded Conv2D built after it draws TF's initial kernel (its op seed is the op count) and
    the generator of a DCGAN trains as TF's; and the values upsampled."""
    keras = tf.keras
    out = {}
    x_val = np.arange(2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2) / 7.0
    for interpolation in ("nearest", "bilinear"):
        for data_format in ("channels_last", "channels_first"):
            graph = tf.Graph()
            with graph.as_default():
                tf.set_random_seed(5)
                inp = keras.Input(shape=(3, 2, 2))
                first = len(graph.get_operations())
                up = keras.layers.UpSampling2D(
                    size=(2, 3), interpolation=interpolation, data_format=data_format
                )(inp)
                ops = _ops_since(graph, first)
                conv = keras.layers.Conv2D(2, 3, data_format="channels_last")
                conv(up if data_format == "channels_last" else tf.transpose(up, [0, 2, 3, 1]))
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    value = sess.run(up, {inp: x_val})
                    kernel = sess.run(conv.kernel)
            out[interpolation + " " + data_format] = {
                "ops": ops,
                "shape": up.shape.as_list(),
                "value": value.tolist(),
                "kernel": kernel.tolist(),
            }
    return out


def keras_repeat_elements_graphs(tf):
    """K.repeat_elements with TF 1.15's ops (a known axis split and its slices concatenated,
    an unknown one tiled on a new axis and reshaped to the shape times the repeats: the
    constants' values too), its values; and UpSampling1D / UpSampling3D built on it, with
    the initial kernel of a seeded Dense built after them."""
    keras = tf.keras
    out = {}
    for name, shape, rep, axis in (
        ("known_axis", [None, 3, 2], 2, 1),
        ("known_negative_axis", [None, 3, 2], 3, -1),
        ("unknown_axis", [None, None, 2], 2, 1),
        ("unknown_first_axis", [None, 2], 3, 0),
    ):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, shape)
            first = len(graph.get_operations())
            y = keras.backend.repeat_elements(x, rep, axis)
            consts = [
                tf.make_ndarray(op.get_attr("value")).tolist()
                for op in graph.get_operations()[first:]
                if op.type == "Const"
            ]
            if len(shape) == 3:
                value = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
            else:
                value = np.arange(4, dtype=np.float32).reshape(2, 2)
            with tf.Session() as sess:
                result = sess.run(y, {x: value})
        out[name] = {
            "ops": _ops_since(graph, first),
            "consts": consts,
            "shape": y.shape.as_list(),
            "value": result.tolist(),
        }
    for name, layer, shape in (
        ("upsampling1d", lambda: keras.layers.UpSampling1D(2), (3, 2)),
        ("upsampling3d", lambda: keras.layers.UpSampling3D(2), (2, 1, 2, 1)),
    ):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(9)
            inp = keras.Input(shape=shape)
            first = len(graph.get_operations())
            up = layer()(inp)
            ops = _ops_since(graph, first)
            dense = keras.layers.Dense(2)
            dense(keras.layers.Flatten()(up))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                kernel = sess.run(dense.kernel)
        out[name] = {"ops": ops, "kernel": kernel.tolist()}
    return out


def keras_shape_reads_make_no_ops(tf):
    """The Keras backend reads a variable's static shape (K.int_shape) without making an op:
    DepthwiseConv2D's bias add, K.bias_add and K.conv1d on resource variables make TF 1.15's
    ops only (no extra ReadVariableOp), so a seeded Dense built after a DepthwiseConv2D draws
    TF's initial kernel; K.bias_add picks BiasAdd or a reshaped add by rank and data format
    as TF's; tf.nn.convolution reads a variable filter inside its own scope."""
    keras = tf.keras
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(4)
        inp = keras.Input(shape=(6, 6, 2))
        first = len(graph.get_operations())
        conv = keras.layers.DepthwiseConv2D(3)(inp)
        out["depthwise_ops"] = _ops_since(graph, first)
        dense = keras.layers.Dense(2)
        dense(keras.layers.Flatten()(conv))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["dense_kernel_after"] = sess.run(dense.kernel).tolist()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 5, 3])
        bias = tf.Variable(tf.zeros([3]), use_resource=True, name="b")
        kernel = tf.Variable(tf.ones([2, 3, 4]), use_resource=True, name="k")
        first = len(graph.get_operations())
        keras.backend.bias_add(x, bias)
        keras.backend.conv1d(x, kernel, padding="causal")
        out["bias_add_and_conv1d_ops"] = _ops_since(graph, first)
    out["bias_add_forms"] = _bias_add_forms(tf)
    for rank in (3, 4):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None] + [5] * (rank - 2) + [3])
            kernel = tf.Variable(tf.ones([2] * (rank - 2) + [3, 4]), use_resource=True)
            first = len(graph.get_operations())
            tf.nn.convolution(x, kernel, padding="VALID")
            out[f"nn_convolution_{rank - 2}d"] = _ops_since(graph, first)
    return out


def _bias_add_forms(tf):
    """K.bias_add over inputs of rank 2 to 5, channels last or first, with a vector bias or
    one of the input's shape past the batch: [ops made, sum of the result]. (The devices are
    listed first, in a graph of their own: the first ask of the process makes ops of its own,
    see keras_channels_first_opens_the_session.)"""
    with tf.Graph().as_default():
        tf.keras.backend.bias_add(
            tf.placeholder(tf.float32, [1, 2, 1, 1]), tf.zeros([2]), "channels_first"
        )
    rows = []
    for ndim in (2, 3, 4, 5):
        for data_format in ("channels_last", "channels_first"):
            for full in (False, True):
                graph = tf.Graph()
                with graph.as_default():
                    shape = [2, 3, 4, 5, 6][:ndim]
                    x = tf.placeholder(tf.float32, shape)
                    channels = shape[1] if data_format == "channels_first" else shape[-1]
                    if not full:
                        bias_shape = [channels]
                    elif data_format == "channels_last":
                        bias_shape = shape[1:]
                    else:
                        bias_shape = [*shape[2:], shape[1]]
                    values = np.arange(np.prod(bias_shape), dtype=np.float32)
                    bias = tf.Variable(values.reshape(bias_shape), use_resource=True)
                    first = len(graph.get_operations())
                    y = tf.keras.backend.bias_add(x, bias, data_format)
                    with tf.Session() as sess:
                        sess.run(bias.initializer)
                        total = float(sess.run(y, {x: np.ones(shape, np.float32)}).sum())
                rows.append([ndim, data_format, full, _ops_since(graph, first), total])
    return rows


def _forget_listed_devices(tf):
    """Keras lists the devices once per process (TF's backend._LOCAL_DEVICES): forgotten, so
    that the case sees a first ask whatever ran before it."""
    import sys

    backend_module = sys.modules[tf.keras.backend.get_session.__module__]
    backend_module._LOCAL_DEVICES = None


def keras_channels_first_opens_the_session(tf):
    """A channels-first Conv2DTranspose, K.conv2d or K.bias_add of a 4-D input asks whether
    NCHW runs here (TF 1.15's _has_nchw_support): the first ask of the process lists the
    devices through the Keras session, which initializes the graph's variables
    (VarIsInitializedOp per variable and an `init` NoOp, in the layer's scope), so a seeded
    Dense after it draws TF's kernel; a second ask makes nothing."""
    keras = tf.keras
    out = {}
    for name in ("conv2d_transpose", "k_conv2d", "k_bias_add"):
        _forget_listed_devices(tf)
        keras.backend.clear_session()
        graph = tf.get_default_graph()
        tf.set_random_seed(6)
        inp = keras.Input(shape=(2, 4, 4))
        first = len(graph.get_operations())
        if name == "conv2d_transpose":
            layer = keras.layers.Conv2DTranspose(2, 3, data_format="channels_first")
            y = layer(inp)
            again = keras.layers.Conv2DTranspose(2, 3, data_format="channels_first")(inp)
        else:
            var = keras.backend.variable(np.ones([3, 3, 2, 2] if name == "k_conv2d" else [2]))
            first = len(graph.get_operations())
            if name == "k_conv2d":
                y = keras.backend.conv2d(inp, var, data_format="channels_first")
                again = keras.backend.conv2d(inp, var, data_format="channels_first")
            else:
                y = keras.backend.bias_add(inp, var, data_format="channels_first")
                again = keras.backend.bias_add(inp, var, data_format="channels_first")
        ops = _ops_since(graph, first)
        dense = keras.layers.Dense(2)
        dense(keras.layers.Flatten()(y + again))
        sess = keras.backend.get_session()
        out[name] = {"ops": ops, "kernel": sess.run(dense.kernel).tolist()}
    keras.backend.clear_session()
    return out


def keras_conv_lstm_loop_and_seeds(tf):
    """A ConvLSTM2D runs K.rnn's while loop with its known number of steps as the loop's
    maximum_iterations (TF 1.15's ConvRNN2D; an LSTM passes none), so a seeded Dense built
    after it draws TF's initial kernel; and its outputs, with and without return_sequences."""
    keras = tf.keras
    out = {}
    x_val = (np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4, 1) % 7) / 7.0
    for sequences in (False, True):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(8)
            inp = keras.Input(shape=(3, 4, 4, 1))
            y = keras.layers.ConvLSTM2D(2, 3, padding="same", return_sequences=sequences)(inp)
            dense = keras.layers.Dense(2)
            dense(keras.layers.Flatten()(y))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                value, kernel = sess.run([y, dense.kernel], {inp: x_val})
        out["sequences" if sequences else "last"] = {
            "value": value.tolist(),
            "kernel": kernel.tolist(),
        }
    return out


def slice_index_dtypes(tf):
    """tf.slice and tf.strided_slice infer their index dtype from the first index input as
    TF's op_def_library does (a numpy int64 begin stays int64, later lists follow it), and a
    tensor of another dtype is TF's TypeError (a self-organizing map's slices)."""
    tf.reset_default_graph()
    x = tf.reshape(tf.range(12), [3, 4])
    out = {}
    attempts = {
        "int64_begin_list_size": lambda: tf.slice(x, tf.constant([1, 0], tf.int64), [1, 2]),
        "numpy_int64_begin": lambda: tf.slice(x, np.array([1, 0], np.int64), [1, 2]),
        "list_begin_int64_size": lambda: tf.slice(x, [1, 0], tf.constant([1, 2], tf.int64)),
        "strided_int64_begin": lambda: tf.strided_slice(x, tf.constant([1, 0], tf.int64), [2, 2]),
        "strided_numpy_int64": lambda: tf.strided_slice(
            x, np.array([1, 0], np.int64), np.array([2, 2], np.int64)
        ),
        "strided_mixed_tensors": lambda: tf.strided_slice(
            x, tf.constant([1, 0], tf.int64), tf.constant([2, 2])
        ),
    }
    with tf.Session() as sess:
        for key, fn in sorted(attempts.items()):
            try:
                t = fn()
                out[key] = [sess.run(t).tolist(), [i.dtype.name for i in t.op.inputs]]
            except Exception as e:
                out[key] = [type(e).__name__, str(e).split("\n")[0]]
    return out


CASES = {
    "slice_index_dtypes": slice_index_dtypes,
    "keras_array_shape_checks": keras_array_shape_checks,
    "keras_named_inputs_and_flat_arrays": keras_named_inputs_and_flat_arrays,
    "nn_kernel_shape_errors": nn_kernel_shape_errors,
    "shuffle_queue_waiting_dequeue": shuffle_queue_waiting_dequeue,
    "keras_upsampling_graph_and_seeds": keras_upsampling_graph_and_seeds,
    "keras_repeat_elements_graphs": keras_repeat_elements_graphs,
    "keras_shape_reads_make_no_ops": keras_shape_reads_make_no_ops,
    "keras_channels_first_opens_the_session": keras_channels_first_opens_the_session,
    "keras_conv_lstm_loop_and_seeds": keras_conv_lstm_loop_and_seeds,
    "control_dependencies_and_feeds_of_other_graphs": (
        control_dependencies_and_feeds_of_other_graphs
    ),
}
