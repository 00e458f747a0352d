"""Details of the graphs TF 1.15's tf.keras builds, which set later ops' random seeds and what
layers receive: a Lambda or a user's layer is called with training=None (TF's graph-mode
__call__ fills nothing; Dropout and BatchNormalization ask for the learning phase in their
own call), K.function groups its updates after its first output (a NoOp even without
updates) and returns its outputs' structure, TimeDistributed's mask goes through the inner
layer (two Reshapes), and a Bidirectional RNN returning sequences outputs zeros at masked
steps; a Model or Sequential called on its own Input tensors builds its graph again;
ConvLSTM2D runs a while loop; Keras's selu is scale * elu; merge layers expand lower-rank
inputs at axis 1; training uses the weights trainable at compile. Each
case is `fn(tf) -> dict of plain values`, recorded on TF 1.15 by
record_keras_graph_details.py and compared by tests/unit/test_keras_graph_details.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

CASES = {}


def _fresh(tf):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(5)
    graph = tf.get_default_graph()
    # tfcluster counts the ops TF 1.15's graph would hold (its loops are single ops).
    count = getattr(graph, "_op_count", None) or (lambda: len(graph.get_operations()))
    return graph, count


def _learning_phase_ops(graph):
    return sorted(op.name for op in graph.get_operations() if "learning_phase" in op.name)


def lambda_and_user_layers_get_no_training(tf):
    graph, _ = _fresh(tf)
    seen = []

    class Probe(tf.keras.layers.Layer):
        def call(self, inputs, training=None):
            seen.append(repr(training))
            return inputs * 2.0

    def fn(t, training=None):
        seen.append(repr(training))
        return t + 1.0

    inputs = tf.keras.Input((3,))
    hidden = tf.keras.layers.Lambda(fn)(inputs)
    probed = Probe()(hidden)
    before_dropout = _learning_phase_ops(graph)
    tf.keras.layers.Dropout(0.5)(probed)
    return {
        "training_seen": seen,
        "learning_phase_before_dropout": before_dropout,
        "learning_phase_after_dropout": _learning_phase_ops(graph),
    }


CASES["lambda_and_user_layers_get_no_training"] = lambda_and_user_layers_get_no_training


def backend_function_groups_updates_after_its_first_output(tf):
    _, count = _fresh(tf)
    x = tf.keras.Input((2,), name="x")
    y = tf.keras.layers.Dense(1, kernel_initializer="ones", name="d")(x)
    counter = tf.keras.backend.variable(0.0, name="counter")
    made = count()
    plain = tf.keras.backend.function([x], [y])
    after_plain = count()
    step = tf.keras.backend.function(
        [x], {"out": y, "twice": y * 2.0}, updates=[(counter, counter + 1.0)]
    )
    after_step = count()
    data = np.array([[1.0, 2.0]], dtype=np.float32)
    out = step([data])
    step([data])
    return {
        "ops_made": [after_plain - made, after_step - after_plain],
        "plain": plain([data])[0].tolist(),
        "structure": sorted(out),
        "values": {k: v.tolist() for k, v in sorted(out.items())},
        "counter": float(tf.keras.backend.get_value(counter)),
    }


CASES["backend_function_groups_updates_after_its_first_output"] = (
    backend_function_groups_updates_after_its_first_output
)


def masked_sequence_stack_ops_and_outputs(tf):
    _, count = _fresh(tf)
    layers = [
        tf.keras.layers.Embedding(10, 3, mask_zero=True, input_length=5),
        tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2, return_sequences=True)),
        tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2)),
        tf.keras.layers.GRU(3),
    ]
    model = tf.keras.Sequential()
    counts = []
    for layer in layers:
        model.add(layer)
        counts.append(count())
    ids = np.array([[1, 2, 0, 0, 0], [3, 4, 5, 6, 0]])
    outputs = {}
    for name in ("bidirectional", "time_distributed", "gru"):
        f = tf.keras.backend.function([model.input], [model.get_layer(name).output])
        outputs[name] = np.round(f([ids])[0], 6).tolist()
    return {
        "op_counts": counts,
        "weight_sums": [round(float(np.sum(w)), 5) for w in model.get_weights()],
        "outputs": outputs,
        "configs": [
            model.get_layer("bidirectional").forward_layer.get_config().get("zero_output_for_mask"),
            model.get_layer("gru").get_config().get("zero_output_for_mask"),
        ],
    }


CASES["masked_sequence_stack_ops_and_outputs"] = masked_sequence_stack_ops_and_outputs


def optimizer_v2_minimize_calls_the_loss_under_a_tape(tf):
    """OptimizerV2.minimize in graph mode, as TF 1.15: the loss must be a callable (a tensor:
    TypeError), called under a GradientTape (a loss made before the call: no gradients,
    ValueError); made inside the call it trains, with a learning-rate schedule, and
    apply_gradients of tf.gradients works as well."""
    _fresh(tf)
    keras = tf.keras
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [None, 1])
    model = keras.Sequential(
        [keras.layers.Dense(4, activation="relu", input_shape=(3,)), keras.layers.Dense(1)]
    )
    loss = tf.reduce_mean(keras.losses.mean_squared_error(y, model(x)))
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
    opt = keras.optimizers.Adam(learning_rate=schedule)
    errors = []
    for attempt in (loss, lambda: loss):
        try:
            opt.minimize(attempt, var_list=model.trainable_variables)
        except (TypeError, ValueError) as e:
            errors.append([type(e).__name__, str(e)])
    train = opt.minimize(
        lambda: tf.reduce_mean(keras.losses.mean_squared_error(y, model(x))),
        var_list=model.trainable_variables,
    )
    sgd = keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True)
    train2 = sgd.apply_gradients(
        zip(tf.gradients(loss, model.trainable_variables), model.trainable_variables)
    )
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(8, 3).astype("float32"), y: rng.rand(8, 1).astype("float32")}
    steps = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for op in (train, train, train, train2, train2):
            sess.run(op, feed)
            steps.append(round(float(sess.run(loss, feed)), 6))
        iterations = [int(sess.run(opt.iterations)), int(sess.run(sgd.iterations))]
    return {
        "errors": errors,
        "train_op": [type(train).__name__, train.name],
        "slots": [v.name for v in opt.variables()],
        "losses": steps,
        "iterations": iterations,
    }


CASES["optimizer_v2_minimize_calls_the_loss_under_a_tape"] = (
    optimizer_v2_minimize_calls_the_loss_under_a_tape
)


def nested_model_with_batch_norm_trains_on_its_callers_inputs(tf):
    """A Sequential with BatchNormalization called inside a functional model: the model has
    the nested model's updates on its own Input and on the caller's, and fit runs only those
    this model's inputs feed (and those that read no input), as TF 1.15's train function."""
    _fresh(tf)
    keras = tf.keras
    inner = keras.Sequential(
        [
            keras.layers.Dense(4, input_shape=(3,)),
            keras.layers.BatchNormalization(),
            keras.layers.Dense(2),
        ]
    )
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inner(inputs)))
    model.compile("sgd", "mse")
    x = np.random.RandomState(0).rand(16, 3).astype("float32")
    y = np.ones((16, 1), "float32")
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return {
        "losses": [round(float(v), 5) for v in history.history["loss"]],
        "predictions": np.round(model.predict(x[:2]), 5).tolist(),
        "updates": [u.name for u in model.updates],
        "moving_mean": np.round(model.get_weights()[4], 5).tolist(),
    }


CASES["nested_model_with_batch_norm_trains_on_its_callers_inputs"] = (
    nested_model_with_batch_norm_trains_on_its_callers_inputs
)


def optimizer_v2_refuses_a_reference_variable(tf):
    """A Keras optimizer asked to update a TF1 reference variable (tf.Variable in graph
    mode): TF 1.15's add_slot fails converting the slot's initial value to `float32_ref`."""
    _fresh(tf)
    v = tf.Variable(1.0)
    opt = tf.keras.optimizers.Adam()
    try:
        opt.apply_gradients([(tf.constant(1.0), v)])
        return {"error": None}
    except Exception as e:
        return {"error": [type(e).__name__, str(e)]}


CASES["optimizer_v2_refuses_a_reference_variable"] = optimizer_v2_refuses_a_reference_variable


def subclassed_model_built_by_fit(tf):
    """A subclassed model fit on arrays is built as TF 1.15's _set_inputs builds it: plain
    placeholders `input_<i>` (its layers record no nodes: the summary's shapes are
    "multiple"; the next keras.Input is still `input_1`) and the learning phase passed as
    `training` (its Dropout drops during fit)."""
    _fresh(tf)
    keras = tf.keras

    class Scale(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(int(input_shape[-1]), 4))
            super().build(input_shape)

        def call(self, x):
            return tf.matmul(x, self.w)

    class Net(keras.Model):
        def __init__(self):
            super().__init__(name="net")
            self.scale = Scale()
            self.drop = keras.layers.Dropout(0.5)
            self.out = keras.layers.Dense(2)

        def call(self, x, training=None):
            seen.append(type(training).__name__)
            return self.out(self.drop(tf.nn.relu(self.scale(x)), training=training))

    seen = []
    model = Net()
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x = np.random.RandomState(0).rand(16, 3).astype("float32")
    history = model.fit(x, np.ones((16, 2), "float32"), batch_size=4, epochs=2, verbose=0,
                        shuffle=False)  # fmt: skip
    lines = []
    model.summary(print_fn=lines.append)
    return {
        "training_seen": seen,
        "losses": [round(float(v), 5) for v in history.history["loss"]],
        "summary": lines,
        "next_input": keras.Input((3,)).name,
    }


CASES["subclassed_model_built_by_fit"] = subclassed_model_built_by_fit


def a_model_called_on_its_own_inputs_builds_its_graph_again(tf):
    """A functional Model or a Sequential called on its own Input tensors runs its layers
    again under the model's name scope (new ops, new tensors; a random op gets a new seed),
    as any other call does."""
    graph, count = _fresh(tf)
    np.random.seed(3)  # Keras's random_normal draws its op seed from numpy
    layers = tf.keras.layers
    inputs = layers.Input(shape=(4,), name="inp")
    hidden = layers.Dense(3, name="d")(inputs)
    noisy = layers.Lambda(lambda t: t + tf.keras.backend.random_normal((1, 3)), name="noise")(
        hidden
    )
    model = tf.keras.Model(inputs, [hidden, noisy], name="enc")
    before = count()
    again = model(inputs)
    after_functional = count()
    other = model(layers.Input(shape=(4,), name="inp2"))
    seq = tf.keras.Sequential([layers.Dense(2, input_shape=(3,), name="s")], name="seq")
    seq_before = count()
    seq_again = seq(seq.inputs[0])
    seq_after = count()
    seeds = sorted(
        (op.name, op.get_attr("seed2"))
        for op in graph.get_operations()
        if op.type == "RandomStandardNormal"
    )
    return {
        "functional_names": [t.name for t in again],
        "functional_same_tensors": [a is b for a, b in zip(again, model.outputs)],
        "functional_ops_added": after_functional - before,
        "second_call_names": [t.name for t in other],
        "sequential_name": seq_again.name,
        "sequential_same_tensor": seq_again is seq.outputs[0],
        "sequential_ops_added": seq_after - seq_before,
        "random_seeds": [list(s) for s in seeds],
    }


CASES["a_model_called_on_its_own_inputs_builds_its_graph_again"] = (
    a_model_called_on_its_own_inputs_builds_its_graph_again
)


def conv_lstm2d_steps_through_unknown_time_steps(tf):
    """ConvLSTM2D runs K.rnn's while loop: an input with an unknown number of time steps
    works, forwards (returning sequences) and backwards (the last output)."""
    _graph, count = _fresh(tf)
    layers = tf.keras.layers
    inputs = layers.Input(shape=(None, 5, 5, 1))
    before = count()
    seqs = layers.ConvLSTM2D(2, (3, 3), padding="same", return_sequences=True)(inputs)
    after_first = count()
    last = layers.ConvLSTM2D(1, (2, 2), go_backwards=True)(seqs)
    model = tf.keras.Model(inputs, [seqs, last])
    rs = np.random.RandomState(0)
    model.set_weights(
        [rs.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.get_weights()]
    )
    got = model.predict(rs.rand(2, 3, 5, 5, 1).astype(np.float32))
    return {
        "shapes": [str(seqs.shape), str(last.shape)],
        "ops_of_first_layer": after_first - before,
        "sequences": got[0].astype(np.float64),
        "last": got[1].astype(np.float64),
    }


CASES["conv_lstm2d_steps_through_unknown_time_steps"] = conv_lstm2d_steps_through_unknown_time_steps


def keras_selu_is_a_scaled_elu(tf):
    """Keras's selu activation is scale * K.elu(x, alpha) (Elu, Greater, mul, Select, mul),
    not the Selu op: its ops, values and an Activation("selu") layer's op count."""
    graph, count = _fresh(tf)
    x = tf.constant(np.linspace(-3, 3, 13).astype(np.float32))
    before = count()
    y = tf.keras.activations.selu(x)
    ops = [op.type for op in graph.get_operations()][-(count() - before) :]
    inputs = tf.keras.layers.Input(shape=(4,))
    layer_before = count()
    tf.keras.layers.Activation("selu")(inputs)
    with tf.Session() as sess:
        values = sess.run(y)
    return {
        "name": y.name,
        "op_types": ops,
        "layer_ops": count() - layer_before,
        "values": values.astype(np.float64),
    }


CASES["keras_selu_is_a_scaled_elu"] = keras_selu_is_a_scaled_elu


def merge_layers_give_lower_rank_inputs_new_axes_at_one(tf):
    """Multiply / Add / Maximum of a [batch, 3] and a [batch, 1, 3] input: the lower-rank
    one gets an axis at 1 (ExpandDims), so the result is [batch, 1, 3], not a broadcast
    [batch, batch, 3]."""
    graph, count = _fresh(tf)
    layers = tf.keras.layers
    flat = layers.Input(shape=(3,))
    deep = layers.Input(shape=(1, 3))
    out = {}
    feeds = {
        flat: np.arange(6, dtype=np.float32).reshape(2, 3),
        deep: np.arange(6, 12, dtype=np.float32).reshape(2, 1, 3),
    }
    with tf.Session() as sess:
        for name, fn in [("multiply", layers.multiply), ("add", layers.add),
                         ("maximum", layers.maximum)]:  # fmt: skip
            before = count()
            merged = fn([flat, deep])
            new_types = [op.type for op in graph.get_operations()][-(count() - before) :]
            out[name] = {
                "shape": str(merged.shape),
                "op_types": new_types,
                "value": sess.run(merged, feeds).astype(np.float64),
            }
    return out


CASES["merge_layers_give_lower_rank_inputs_new_axes_at_one"] = (
    merge_layers_give_lower_rank_inputs_new_axes_at_one
)


def training_uses_the_weights_trainable_at_compile(tf):
    """A model compiled, then set trainable=False (a GAN's discriminator before it goes into
    the combined model): its train_on_batch still trains the weights collected at compile."""
    _fresh(tf)
    layers = tf.keras.layers
    inputs = layers.Input(shape=(3,))
    output = layers.Dense(1, activation="sigmoid", kernel_initializer="ones")(inputs)
    model = tf.keras.Model(inputs, output)
    model.compile("sgd", "binary_crossentropy")
    model.trainable = False
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    loss = model.train_on_batch(x, np.array([1.0, 0.0]))
    return {
        "trainable_after": len(model.trainable_weights),
        "loss": float(loss),
        "weights": [w.astype(np.float64) for w in model.get_weights()],
    }


CASES["training_uses_the_weights_trainable_at_compile"] = (
    training_uses_the_weights_trainable_at_compile
)


def a_model_with_every_weight_frozen_still_trains(tf):
    """A model whose layers are all frozen before compile: TF 1.15's Keras optimizer applies
    an empty gradient list (only its iterations count), so train_on_batch and fit run."""
    _fresh(tf)
    keras = tf.keras
    model = keras.Sequential(
        [keras.layers.Dense(2, input_shape=(3,)), keras.layers.BatchNormalization()]
    )
    for layer in model.layers:
        layer.trainable = False
    model.compile("adam", "mse")
    x = np.ones((4, 3), "float32")
    y = np.ones((4, 2), "float32")
    first = float(model.train_on_batch(x, y))
    history = model.fit(x, y, verbose=0)
    return {
        "train_on_batch": round(first, 5),
        "fit": [round(float(v), 5) for v in history.history["loss"]],
        "iterations": int(keras.backend.get_value(model.optimizer.iterations)),
    }


CASES["a_model_with_every_weight_frozen_still_trains"] = (
    a_model_with_every_weight_frozen_still_trains
)


def layer_dtypes_are_names(tf):
    """A layer's dtype is the name of its variables' dtype ('float32'), None until a first call
    fixes it: TF 1.15's layers keep a dtype policy whose variable dtype is a string, in
    tf.keras and tf.layers alike; tensors keep DType objects."""
    _fresh(tf)
    keras = tf.keras

    def shown(value):
        return [type(value).__name__, str(value)]

    unbuilt = keras.layers.Dense(3)
    before = shown(unbuilt.dtype)
    unbuilt(tf.placeholder(tf.float32, [None, 4]))
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(4,))])
    legacy = tf.layers.Dense(2)
    legacy(tf.placeholder(tf.float64, [None, 4]))
    return {
        "unbuilt": before,
        "built": shown(unbuilt.dtype),
        "given_name": shown(keras.layers.Dense(3, dtype="float64").dtype),
        "given_dtype": shown(keras.layers.Dense(3, dtype=tf.float16).dtype),
        "sequential": shown(model.dtype),
        "sequential_layer": shown(model.layers[0].dtype),
        "model_input": shown(model.input.dtype),
        "input_layer": shown(keras.layers.InputLayer((4,)).dtype),
        "legacy_unbuilt": shown(tf.layers.Dense(3).dtype),
        "legacy_built": shown(legacy.dtype),
        "batch_norm": shown(keras.layers.BatchNormalization(dtype="float64").dtype),
        "config": model.layers[0].get_config()["dtype"],
    }


CASES["layer_dtypes_are_names"] = layer_dtypes_are_names


def layer_and_model_attributes(tf):
    """Attributes TF 1.15's layers and models have: input_mask / output_mask (an Embedding's
    mask through an LSTM), run_eagerly, loss_weights and sample_weights after compile, an
    InputLayer's batch_size / sparse / ragged, a graph's collections and building_function, and
    an RNN cell's Keras-layer API (count_params before and after building, get_weights and
    set_weights in the Keras session, dynamic / stateful / supports_masking / metrics)."""
    graph, _ = _fresh(tf)
    keras = tf.keras
    inp = keras.Input((3,), name="x")
    dense = keras.layers.Dense(2, name="d")
    model = keras.Model(inp, dense(inp), name="mm")
    model.compile("sgd", "mse", loss_weights=[0.5])
    model.fit(np.ones((2, 3)), np.ones((2, 2)), verbose=0)
    emb = keras.layers.Embedding(5, 2, mask_zero=True)
    lstm = keras.layers.LSTM(2, return_sequences=True)
    lstm(emb(keras.Input((4,))))
    out = {
        "masks": [repr(model.input_mask), repr(model.output_mask), repr(dense.input_mask)],
        "masked": [emb.output_mask is not None, lstm.input_mask is not None],
        "model": [model.run_eagerly, model.loss_weights, repr(model.sample_weights)],
        "input_layer": [model.layers[0].batch_size, model.layers[0].sparse, model.layers[0].ragged],
        "input_layer_batch": keras.layers.InputLayer(batch_size=4, input_shape=(2,)).batch_size,
        "graph": [
            sorted(k for k in graph.collections if k != "while_context"),
            graph.building_function,
        ],
    }
    cell = tf.nn.rnn_cell.LSTMCell(3, name="c")
    try:
        cell.count_params()
    except ValueError as e:
        out["unbuilt_count_params"] = str(e)
    tf.nn.dynamic_rnn(cell, tf.ones((2, 4, 5)), dtype=tf.float32)
    out["cell"] = [cell.count_params(), cell.dynamic, cell.stateful, cell.supports_masking,
                   repr(cell.activity_regularizer), len(cell.metrics)]  # fmt: skip
    session = keras.backend.get_session()
    session.run(tf.global_variables_initializer())
    weights = cell.get_weights()
    out["cell_weight_shapes"] = [list(w.shape) for w in weights]
    cell.set_weights([np.ones_like(w) for w in weights])
    out["cell_kernel_sum_after_set"] = float(session.run(cell.weights[0]).sum())
    try:
        cell.set_weights(weights[:1])
    except ValueError as e:
        out["set_weights_error"] = str(e).split(" Provided weights")[0]
    return out


CASES["layer_and_model_attributes"] = layer_and_model_attributes


def metric_loss_and_callback_attributes(tf):
    """A metric's Layer API (TF 1.15's Metric is a Keras Layer): its weights non-trainable,
    get_weights / set_weights in the Keras session, count_params, from_config, its dtype's
    name; BinaryCrossentropy's from_logits; CSVLogger's and TensorBoard's attributes, and an
    appending CSVLogger writing a header into an existing empty file."""
    import os
    import tempfile

    _fresh(tf)
    keras = tf.keras
    mean = keras.metrics.Mean(name="avg")
    update = mean.update_state([1.0, 2.0, 3.0])
    session = keras.backend.get_session()
    session.run(tf.variables_initializer(mean.variables))
    session.run(update)
    out = {
        "weights": [
            [w.name for w in mean.trainable_weights],
            [w.name for w in mean.non_trainable_weights],
        ],
        "values": [float(v) for v in mean.get_weights()],
        "layer_api": [
            mean.trainable,
            mean.count_params(),
            mean.losses,
            mean.metrics,
            mean.supports_masking,
            mean.dynamic,
            repr(mean.input_spec),
        ],
        "dtype": mean.dtype,
    }
    mean.set_weights([np.float32(10.0), np.float32(4.0)])
    out["result_after_set"] = float(session.run(mean.result()))
    copy = keras.metrics.Mean.from_config(mean.get_config())
    out["from_config"] = [type(copy).__name__, copy.name]
    auc = keras.metrics.AUC(num_thresholds=5)
    out["auc"] = [[w.name for w in auc.weights], auc.count_params()]
    out["from_logits"] = keras.losses.BinaryCrossentropy(from_logits=True).from_logits
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "log.csv")
    open(path, "w").close()
    csv_logger = keras.callbacks.CSVLogger(path, append=True)
    out["csv_logger"] = [csv_logger.append_header, csv_logger.file_flags, repr(csv_logger.writer)]
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")])
    model.compile("sgd", "mse")
    model.fit(np.ones((2, 2)), np.ones((2, 1)), epochs=2, verbose=0, callbacks=[csv_logger])
    with open(path) as f:
        out["csv_lines"] = [line.split(",")[0] for line in f.read().splitlines()]
    board = keras.callbacks.TensorBoard(
        log_dir=directory, embeddings_freq=2, embeddings_layer_names=["e"],
        embeddings_metadata="m.tsv",
    )  # fmt: skip
    out["tensorboard"] = [board.embeddings_freq, board.embeddings_layer_names,
                          board.embeddings_metadata, repr(board.embeddings_data)]  # fmt: skip
    return out


CASES["metric_loss_and_callback_attributes"] = metric_loss_and_callback_attributes


def pooling_relu_and_depthwise_attributes(tf):
    """Fields TF 1.15's layers carry: a pooling layer's pool_function (Keras's pool2d for
    1-D, tf.nn's pools for 2-D and 3-D; tf.layers' alike), ReLU's support_masking, the Conv2D
    fields DepthwiseConv2D inherits."""
    _fresh(tf)
    keras = tf.keras

    def described(fn):
        keywords = getattr(fn, "keywords", None)
        name = getattr(fn, "__name__", None) or getattr(fn.func, "__name__", None)
        return [name, keywords]

    pools = {
        name: described(getattr(keras.layers, name)(2).pool_function)
        for name in ("MaxPooling1D", "AveragePooling1D", "MaxPooling2D", "AveragePooling2D",
                     "MaxPooling3D", "AveragePooling3D")
    }  # fmt: skip
    pools["tf.layers.MaxPooling2D"] = described(tf.layers.MaxPooling2D(2, 2).pool_function)
    relu = keras.layers.ReLU()
    depthwise = keras.layers.DepthwiseConv2D(3)
    return {
        "pools": pools,
        "relu": [relu.support_masking, relu.supports_masking],
        "depthwise": [depthwise.filters, type(depthwise.kernel_initializer).__name__,
                      repr(depthwise.kernel_regularizer), repr(depthwise.kernel_constraint)],
    }  # fmt: skip


CASES["pooling_relu_and_depthwise_attributes"] = pooling_relu_and_depthwise_attributes
