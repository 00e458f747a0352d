"""Behaviours public TF1 model code (a GPT-2 style sampler: shape lists of partly known shapes,
tf.sort, tf.multinomial, nucleus sampling over a softmax) showed apart on tfcluster. Each case
is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_model_sweep.py and on tfcluster by
tests/unit/test_model_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


def _shape(t):
    return str(t.shape)


def partial_shape_scalars(tf):
    """tf.shape(x)[i] of a partly known shape is not a constant to TF 1.15's shape inference,
    even where dimension i is known: the ops it sizes have unknown dimensions there."""
    tf.reset_default_graph()
    tokens = tf.placeholder(tf.int32, [1, None])
    feats = tf.placeholder(tf.float32, [None, 3])
    batch = tf.shape(tokens)[0]
    width = tf.shape(feats)[1]
    return {
        "tile": _shape(tf.tile(tf.zeros([1, 2]), [batch, 1])),
        "reshape": _shape(tf.reshape(tf.zeros([6]), [batch, -1])),
        "reshape_known_dims": _shape(tf.reshape(feats, [tf.shape(feats)[0], 3, 1])),
        "reshape_by_width": _shape(tf.reshape(feats, [width, -1])),
        "fill": _shape(tf.fill([batch, 2], 1.0)),
        "zeros": _shape(tf.zeros([batch, 2])),
        "zeros_of_stack": _shape(tf.zeros(tf.stack([batch, 2]))),
        "ones": _shape(tf.ones([width, 2])),
        "random_normal": _shape(tf.random_normal([width, 2])),
        "slice": _shape(tf.slice(feats, [0, 0], [width, 2])),
        "broadcast_to": _shape(tf.broadcast_to(1.0, [batch, 2])),
        "positions": _shape(
            tf.gather(tf.zeros([10, 4]), tf.tile(tf.expand_dims(tf.range(5), 0), [batch, 1]))
            + tf.gather(tf.zeros([10, 4]), tokens)
        ),
        "range": _shape(tf.range(width)),
    }


def sort_ops_and_values(tf):
    """tf.sort / tf.argsort build TF's ops (a Rank TF makes and leaves unused, an int64
    transposition), so later op seeds are TF's."""
    tf.reset_default_graph()
    tf.set_random_seed(5)
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    p = tf.placeholder(tf.float32)
    outs = [
        tf.sort(x),
        tf.sort(x, axis=1, direction="DESCENDING"),
        tf.argsort(x, axis=0),
        tf.sort(p, axis=1),
        tf.argsort(p, axis=-2),
    ]
    draw = tf.random_uniform([3])
    ops = [
        [op.type, op.name, op.outputs[0].dtype.name if op.outputs else ""]
        for op in tf.get_default_graph().get_operations()
    ]
    with tf.Session() as sess:
        values = sess.run([*outs, draw], {p: x})
    return {"ops": ops, "values": [v.tolist() for v in values]}


# (rows, samples, classes): one block of rows in TF's cost model up to the fourth; the rest
# are split over the intra-op threads.
_MULTINOMIAL_SHAPES = [
    (2, 1, 10),
    (3, 5, 10),
    (8, 7, 100),
    (2, 3, 5),
    (4, 100, 1000),
    (64, 10, 500),
    (32, 3, 50),
]


def multinomial_draws(tf):
    """tf.multinomial / tf.random.categorical draw TF's classes for a seed: its Philox stream,
    rows split into blocks over two intra-op threads as TF's cost model splits them; rows with
    -inf logits skip those classes, a row of only -inf gives num_classes. TF 1.15 sizes its
    intra-op pool once per process, from the first session's config: this case's session is
    the recorder's first (its cases run in name order)."""
    tf.reset_default_graph()
    tf.set_random_seed(7)
    rs = np.random.RandomState(1)
    draws = []
    for rows, samples, classes in _MULTINOMIAL_SHAPES:
        logits = (rs.randn(rows, classes) * 2).astype(np.float32)
        if classes == 5:
            logits[0, 1] = -np.inf
            logits[1, :] = -np.inf
        draws.append(tf.random.categorical(logits, samples))
    draws.append(tf.multinomial([[0.5, 1.5, -1.0]], 4, output_dtype=tf.int32))
    config = tf.ConfigProto(intra_op_parallelism_threads=2)
    with tf.Session(config=config) as sess:
        runs = [sess.run(draws) for _ in range(2)]
    return {"runs": [[d.tolist() for d in run] for run in runs]}


def softmax_reciprocal_product(tf):
    """TF's softmax multiplies exp(x - max) by the reciprocal of the row sum: its cumulative
    sum over a few finite logits ends at 1.0000001 where a quotient ends at 1.0."""
    tf.reset_default_graph()
    v = np.array([[0.5445846, 0.38624892, 0.351897] + [-1e10] * 97], np.float32)
    sm = tf.nn.softmax(v)
    with tf.Session() as sess:
        a, b = sess.run([sm, tf.cumsum(sm, axis=-1)])
    return {"softmax": a.view(np.int32).tolist(), "cumsum_end": b[0, -1].view(np.int32).tolist()}


def sparse_tensor_operators(tf):
    """A SparseTensor times or over a dense value (tkipf/gcn's sparse dropout scales by
    1/keep_prob): SparseDenseCwiseMul/Div on its values, integer values cast as truediv does."""
    tf.reset_default_graph()
    sp = tf.SparseTensor([[0, 0], [1, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 3])
    isp = tf.SparseTensor([[0, 1], [2, 2]], [3, 7], [3, 3])
    outs = [sp * 2.0, sp * tf.constant([1.0, 2.0, 3.0]), sp / 4.0, isp / 2, sp.__div__(2.0)]
    ops = [[op.type, op.name] for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        values = sess.run(outs)
    rows = [[v.indices.tolist(), v.values.tolist(), str(v.values.dtype)] for v in values]
    return {"ops": ops, "values": rows}


def shuffle_repeat_by_iterator_kind(tf):
    """Kyubyong/transformer makes its iterator with Iterator.from_structure and
    make_initializer, which applies no dataset options: shuffle().repeat() then reshuffles
    each epoch; make_initializable_iterator and make_one_shot_iterator apply the default
    options (OptimizeDataset with shuffle_and_repeat_fusion, ModelDataset), unless the options
    turn them off."""
    out = {}
    for kind in ("initializable", "one_shot", "make_initializer", "no_defaults", "no_fusion"):
        tf.reset_default_graph()
        ds = tf.data.Dataset.range(12).shuffle(100, seed=5).repeat(3)
        if kind in ("no_defaults", "no_fusion"):
            options = tf.data.Options()
            if kind == "no_defaults":
                options.experimental_optimization.apply_default_optimizations = False
                options.experimental_optimization.autotune = False
            else:
                options.experimental_optimization.shuffle_and_repeat_fusion = False
            ds = ds.with_options(options)
        ds = ds.batch(12)
        if kind == "one_shot":
            it = tf.data.make_one_shot_iterator(ds)
            init = []
        elif kind == "make_initializer":
            it = tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes)
            init = it.make_initializer(ds)
        else:
            it = tf.data.make_initializable_iterator(ds)
            init = it.initializer
        nxt = it.get_next()
        ops = [[op.type, op.name] for op in tf.get_default_graph().get_operations()]
        with tf.Session() as sess:
            sess.run(init)
            epochs = [sess.run(nxt).tolist() for _ in range(3)]
        out[kind] = {"ops": ops[-6:], "epochs": epochs}
    return out


def legacy_layers_tracked_by_keras(tf):
    """tensorflow/models' official/mnist builds tf.layers layers as attributes of a
    tf.keras.Model: TF 1.15 makes their variables resource variables (VarHandleOp), so the op
    seeds of later initializers count those ops. A tf.layers layer outside Keras keeps
    VariableV2."""
    tf.reset_default_graph()
    tf.set_random_seed(7)

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv = tf.layers.Conv2D(2, 3, padding="same")
            self.fc = tf.layers.Dense(3)

        def __call__(self, x):
            return self.fc(tf.layers.flatten(self.conv(x)))

    x = tf.constant(np.arange(32, dtype=np.float32).reshape(2, 4, 4, 1) / 32.0)
    y = Net()(x)
    plain = tf.layers.Dense(2)(y)
    ops = [[op.type, op.name] for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([y, plain])
        weights = sess.run(tf.global_variables())
    return {
        "variable_ops": [o for o in ops if o[0] in ("VarHandleOp", "VariableV2")],
        "values": [v.tolist() for v in values],
        "weights": [w.tolist() for w in weights],
    }


def keras_sequential_resource_weights(tf):
    """A tf.keras Sequential under tf.set_random_seed: TF 1.15's Keras layers make resource
    variables (VarHandleOp), so the op seeds of later layers' initializers count those ops;
    BatchNormalization reads gamma and beta inside a cond on the learning phase, and the
    gradient reaches them through it; the checkpoint keeps the layers' names."""
    import os
    import tempfile

    tf.reset_default_graph()
    tf.set_random_seed(7)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 2)),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dropout(0.5),
            tf.keras.layers.Dense(8, activation="relu"),
            tf.keras.layers.Dense(3, activation="softmax"),
        ]
    )
    graph = tf.get_default_graph()
    variable_ops = [
        [op.type, op.name]
        for op in graph.get_operations()
        if op.type in ("VarHandleOp", "VariableV2", "ReadVariableOp", "Identity")
        and "/cond" not in op.name
    ]
    variables = [[v.name, type(v).__name__] for v in tf.global_variables()]
    initial = [w.tolist() for w in model.get_weights()]
    sess = tf.keras.backend.get_session()
    folder = tempfile.mkdtemp()
    path = tf.train.Saver().save(sess, os.path.join(folder, "model"))
    checkpoint = sorted([name, shape] for name, shape in tf.train.list_variables(path))
    model.compile(
        optimizer=tf.train.GradientDescentOptimizer(0.1),
        loss="sparse_categorical_crossentropy",
    )
    rng = np.random.RandomState(0)
    x = rng.rand(16, 8, 8, 2).astype(np.float32)
    y = rng.randint(0, 3, size=16)
    steps = [float(model.train_on_batch(x[:8], y[:8])) for _ in range(3)]
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history
    return {
        "variable_ops": variable_ops,
        "variables": variables,
        "initial_weights": initial,
        "checkpoint": checkpoint,
        "train_on_batch": steps,
        "fit_losses": [float(v) for v in history["loss"]],
        "predictions": model.predict(x[:4]).tolist(),
        "trained_weights": [w.tolist() for w in model.get_weights()],
    }


def cond_reads_resource_variable(tf):
    """tf.cond branches reading a resource variable (a product in one, fused batch norm in
    both): tf.gradients with respect to the variable reaches it through the cond."""
    tf.reset_default_graph()
    v = tf.Variable([1.0, 2.0], use_resource=True)
    pred = tf.placeholder_with_default(True, [])
    x = tf.constant([[3.0, 4.0]])
    y = tf.cond(pred, lambda: x * v, lambda: x + v)
    x4 = tf.constant(np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2) / 16.0)

    def train():
        return tf.nn.fused_batch_norm(x4, v, v, epsilon=1e-3)[0]

    def infer():
        return tf.nn.fused_batch_norm(
            x4, v, v, mean=v, variance=v, is_training=False, epsilon=1e-3
        )[0]

    z = tf.cond(pred, train, infer)
    grads = tf.gradients(tf.reduce_sum(y), [v]) + tf.gradients(tf.reduce_sum(z * z), [v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {
            "true": [g.tolist() for g in sess.run(grads)],
            "false": [g.tolist() for g in sess.run(grads, {pred: False})],
        }


def keras_learning_phase_after_weights(tf):
    """A tf.keras layer taking `training` (BatchNormalization, here with random
    initializers) asks for the learning phase in its call, after its weights are built: under
    tf.set_random_seed its initializers' op seeds count no keras_learning_phase ops."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    x = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))
    norm = tf.keras.layers.BatchNormalization(
        gamma_initializer="random_uniform", beta_initializer="random_normal"
    )
    dense = tf.keras.layers.Dense(2)
    y = dense(norm(x))
    order = [
        [op.type, op.name]
        for op in tf.get_default_graph().get_operations()
        if op.type in ("VarHandleOp", "VariableV2", "PlaceholderWithDefault")
    ]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        weights, out = sess.run([norm.weights + dense.weights, y])
    return {"order": order, "weights": [w.tolist() for w in weights], "output": out.tolist()}


def keras_metric_weights(tf):
    """tf.keras metrics' state: resource variables in no collection (TF 1.15's Metric
    add_weight passes collections=[]), so tf.global_variables()/tf.local_variables() and a
    Saver leave them out; initialized from metric.variables."""
    tf.reset_default_graph()
    tf.set_random_seed(5)
    mean = tf.keras.metrics.Mean()
    update = mean.update_state(tf.constant([1.0, 2.0, 4.0]))
    accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
    acc_update = accuracy.update_state(tf.constant([1, 0]), tf.constant([[0.2, 0.8], [0.3, 0.7]]))
    draw = tf.random_uniform([3])
    graph = tf.get_default_graph()
    with tf.Session() as sess:
        sess.run(tf.variables_initializer(mean.variables + accuracy.variables))
        sess.run([update, acc_update])
        results = sess.run([mean.result(), accuracy.result()])
        drawn = sess.run(draw)
    return {
        "collections": [
            [v.name for v in tf.global_variables()],
            [v.name for v in tf.local_variables()],
            [v.name for v in graph.get_collection("metric_variables")],
        ],
        "variables": [[v.name, type(v).__name__] for v in mean.variables + accuracy.variables],
        "variable_ops": [
            [op.type, op.name] for op in graph.get_operations() if op.type == "VarHandleOp"
        ],
        "results": [float(r) for r in results],
        "draw": drawn.tolist(),
    }


def keras_metric_in_estimator(tf):
    """An EstimatorSpec takes a tf.keras metric as an eval_metric_op: it runs the metric's
    recorded update (metric.updates[0]) and adds its variables, which are in no collection, to
    LOCAL_VARIABLES so the evaluation initializes them."""
    import tempfile

    tf.reset_default_graph()

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1], initializer=tf.ones_initializer())
        pred = features["x"] * w
        loss = tf.reduce_mean(tf.square(pred - labels))
        mean = tf.keras.metrics.Mean()
        mean.update_state(pred)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train, eval_metric_ops={"mean": mean}
        )

    estimator = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp())
    x = {"x": np.array([1.0, 2.0, 3.0], np.float32)}
    y = np.array([2.0, 4.0, 6.0], np.float32)
    input_fn = tf.estimator.inputs.numpy_input_fn(x, y, shuffle=False, num_epochs=1, batch_size=3)
    estimator.train(input_fn)
    result = estimator.evaluate(input_fn)
    return {k: float(v) for k, v in sorted(result.items())}


def keras_optimizer_weights(tf):
    """compile's optimizers make TF 1.15's variables: a wrapped tf.train optimizer's step is
    the resource variable TFOptimizer/iterations (made at compile, incremented by a bare
    AssignAddVariableOp), a Keras optimizer's step, hyperparameters and slots are resource
    variables under its name (training/Adam/..., Adam/... outside a model); K.variable makes
    a resource variable."""
    tf.reset_default_graph()
    tf.set_random_seed(2)
    x = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    y = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    wrapped = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    keras_opt = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    # (Both built before compile: compile's loss graph is not TF's op for op yet.)
    wrapped.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    keras_opt.compile(tf.keras.optimizers.Adam(0.01), "mse")
    losses = [
        [float(model.train_on_batch(x, y)) for _ in range(3)] for model in (wrapped, keras_opt)
    ]
    direct = tf.keras.optimizers.RMSprop()
    weight = tf.keras.backend.variable(np.ones(3, np.float32), name="w")
    direct.get_updates(tf.reduce_sum(weight * weight), [weight])
    graph = tf.get_default_graph()
    return {
        "variables": [[v.name, type(v).__name__] for v in tf.global_variables()],
        "step_ops": [
            [op.type, op.name]
            for op in graph.get_operations()
            if op.name.startswith("training/GradientDescent")
        ],
        "losses": losses,
    }


def rnn_cell_held_by_keras_rnn(tf):
    """A tf.nn.rnn_cell cell given to tf.keras.layers.RNN is a legacy layer the Keras layer
    tracks: TF 1.15 makes its weights resource variables; the same cell class used by
    tf.nn.dynamic_rnn keeps VariableV2."""
    tf.reset_default_graph()
    tf.set_random_seed(4)
    x = tf.constant(np.linspace(-1.0, 1.0, 30, dtype=np.float32).reshape(2, 5, 3))
    y = tf.keras.layers.RNN(tf.nn.rnn_cell.LSTMCell(3))(x)
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32)
    ops = tf.get_default_graph().get_operations()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
    return {
        "variable_ops": [
            [op.type, op.name] for op in ops if op.type in ("VarHandleOp", "VariableV2")
        ],
        "output": out.tolist(),
    }


def sequential_called_before_built(tf):
    """A tf.keras Sequential without an input shape, called on a tensor: TF 1.15 runs its
    layers on that tensor once (weights named sequential/dense/...), with no input
    placeholder of its own; the seeded weights and the output follow from that op list."""
    tf.reset_default_graph()
    tf.set_random_seed(3)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(2)]
    )
    x = tf.constant(np.linspace(0.0, 1.0, 6, dtype=np.float32).reshape(2, 3))
    y = model(x)
    ops = [[op.type, op.name] for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
    return {"ops": ops, "output": out.tolist()}


CASES = {
    f.__name__: f
    for f in (
        partial_shape_scalars,
        sort_ops_and_values,
        multinomial_draws,
        softmax_reciprocal_product,
        sparse_tensor_operators,
        shuffle_repeat_by_iterator_kind,
        legacy_layers_tracked_by_keras,
        keras_sequential_resource_weights,
        cond_reads_resource_variable,
        keras_learning_phase_after_weights,
        keras_metric_weights,
        keras_metric_in_estimator,
        keras_optimizer_weights,
        rnn_cell_held_by_keras_rnn,
        sequential_called_before_built,
    )
}
