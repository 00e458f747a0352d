"""Behaviours the TF 1.15 guides and tutorials of tensorflow/docs (site/en/r1: the Keras
guide, the Keras tutorials) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_guide_sweep.py and on tfcluster by
tests/unit/test_guide_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import os
import re
import shutil
import tempfile

import numpy as np

try:
    from tf_reference.case_tools import captured
except ImportError:  # run by the recorder from this folder
    from case_tools import captured

CASES = {}


def _small_model(tf, inputs=4, hidden=8, classes=3):
    layers = tf.keras.layers
    model = tf.keras.Sequential(
        [
            layers.Dense(hidden, activation="relu", input_shape=(inputs,)),
            layers.Dense(classes, activation="softmax"),
        ]
    )
    model.compile(
        optimizer=tf.train.GradientDescentOptimizer(0.1),
        loss="categorical_crossentropy",
        metrics=["accuracy"],
    )
    return model


def _data(n, inputs=4, classes=3):
    x = np.random.random((n, inputs))
    y = np.eye(classes)[np.random.randint(0, classes, n)]
    return x, y


def _history(h):
    return {k: [float(v) for v in vs] for k, vs in sorted(h.history.items())}


def fit_validation_draws(tf):
    """Keras's array loop in TF 1.15 runs fit's validation through model_iteration with its
    default shuffle=True: the validation samples are shuffled (numpy's generator) every time
    they are evaluated, even under fit(shuffle=False); shuffle='batch' swaps whole batches and
    leaves the partial last one in place. The numbers drawn after each fit show how many draws
    it made; the histories show the batches went in TF's order."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    np.random.seed(0)
    model = _small_model(tf)
    x, y = _data(20)
    vx, vy = _data(7)
    runs = {
        "validation_data": dict(validation_data=(vx, vy)),
        "validation_data_unshuffled": dict(validation_data=(vx, vy), shuffle=False),
        "validation_split": dict(validation_split=0.3),
        "batch_shuffle": dict(shuffle="batch"),
        "batch_shuffle_validation": dict(shuffle="batch", validation_data=(vx, vy)),
    }
    out = {}
    for name, kwargs in sorted(runs.items()):
        np.random.seed(3)
        h = model.fit(x, y, epochs=2, batch_size=6, verbose=0, **kwargs)
        out[name] = {"history": _history(h), "next_draw": float(np.random.random())}
    return out


CASES["fit_validation_draws"] = fit_validation_draws


def _bar_lines(text):
    """What a terminal shows of Keras's progress output: each line's last state (after its
    last carriage return), without timings."""
    shown = []
    for line in text.replace("\b", "").split("\n"):
        parts = [p for p in line.split("\r") if p.strip()]
        if not parts:
            continue
        last = parts[-1]
        last = re.sub(r" - ETA: \S+", "", last)
        last = re.sub(r" - \d+s( \d+[mu]?s/(sample|step))?", "", last)
        shown.append(last)
    return shown


def progress_bar_final_lines(tf):
    """The lines fit prints: 'Train on N samples' for arrays, 'Train on N steps[, validate on
    M steps]' for datasets ('None' when the size is unknown, learnt when the data runs out,
    after which the bar has a target). At an epoch's end TF 1.15's ProgbarLogger adds the
    epoch's values to the last batch's (kept since that batch reached the target and was not
    shown), so the last line shows the epoch's mean of a loss, batches weighted by samples
    (arrays) or by steps (datasets)."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    np.random.seed(0)
    model = _small_model(tf)
    x, y = _data(20)
    vx, vy = _data(5)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    vds = tf.data.Dataset.from_tensor_slices((vx, vy)).batch(2)
    runs = [
        ("arrays", dict(x=x, y=y, batch_size=8, shuffle=False)),
        ("arrays_validation", dict(x=x, y=y, batch_size=8, validation_data=(vx, vy))),
        ("dataset", dict(x=ds)),
        ("dataset_validation", dict(x=ds, validation_data=vds)),
        (
            "dataset_steps",
            dict(
                x=ds.repeat(), steps_per_epoch=2, validation_data=vds.repeat(), validation_steps=2
            ),
        ),
        ("dataset_unknown_size", dict(x=ds.filter(lambda a, b: True), epochs=2)),
    ]
    out = {}
    for name, kwargs in runs:
        kwargs.setdefault("epochs", 1)
        with captured() as c:
            h = model.fit(verbose=1, **kwargs)
        out[name] = {"lines": _bar_lines(c.stdout), "history": _history(h)}
    return out


CASES["progress_bar_final_lines"] = progress_bar_final_lines


def keras_estimator_of_a_tf_optimizer(tf):
    """The Keras guide's model_to_estimator of a model compiled with a tf.train optimizer: the
    wrapper has no config (TF 1.15's TFOptimizer.get_config raises NotImplementedError), so
    the estimator's clone wraps the same optimizer anew around the global step, with or
    without a MirroredStrategy (whose variables warm-start from the Keras model's weights)."""
    out = {}
    for name, distribute in (("plain", False), ("mirrored", True)):
        tf.reset_default_graph()
        tf.keras.backend.clear_session()
        tf.set_random_seed(2)
        layers = tf.keras.layers
        model = tf.keras.Sequential(
            [
                layers.Dense(5, activation="relu", input_shape=(3,)),
                layers.Dense(1, activation="sigmoid"),
            ]
        )
        model.compile(loss="binary_crossentropy", optimizer=tf.train.GradientDescentOptimizer(0.2))

        def input_fn():
            rng = np.random.RandomState(1)
            x = rng.random_sample((40, 3))
            y = rng.randint(2, size=(40, 1))
            x = tf.cast(x, tf.float32)
            return tf.data.Dataset.from_tensor_slices((x, y)).repeat(3).batch(8)

        config = tf.estimator.RunConfig(tf_random_seed=SEED)
        if distribute:
            config = tf.estimator.RunConfig(
                tf_random_seed=SEED, train_distribute=tf.distribute.MirroredStrategy()
            )
        model_dir = tempfile.mkdtemp()
        try:
            estimator = tf.keras.estimator.model_to_estimator(
                keras_model=model, config=config, model_dir=model_dir
            )
            estimator.train(input_fn=input_fn, steps=4)
            result = estimator.evaluate(input_fn=input_fn, steps=2)
            kernel = estimator.get_variable_value("dense/kernel")
        finally:
            shutil.rmtree(model_dir, ignore_errors=True)
        out[name] = {
            "loss": float(result["loss"]),
            "global_step": int(result["global_step"]),
            "kernel": kernel.tolist(),
        }
    return out


def metrics_start_from_zero(tf):
    """After a fit on arrays (which leaves its metrics' totals), TF 1.15's dataset and
    generator loops reset the metrics before they start: a fit on a dataset, evaluate of a
    dataset and evaluate_generator report this run's accuracy alone."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    np.random.seed(0)
    model = _small_model(tf)
    x, y = _data(20)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)

    def batches():
        while True:
            yield x[:8], y[:8]

    out = {}
    model.fit(x, y, batch_size=6, verbose=0)
    with captured() as c:
        h = model.fit(ds, verbose=1)
    out["dataset_fit"] = {"lines": _bar_lines(c.stdout), "history": _history(h)}
    model.fit(x, y, batch_size=6, verbose=0)
    out["dataset_evaluate"] = [float(v) for v in model.evaluate(ds, verbose=0)]
    model.fit(x, y, batch_size=6, verbose=0)
    out["evaluate_generator"] = [float(v) for v in model.evaluate_generator(batches(), steps=2)]
    return out


CASES["metrics_start_from_zero"] = metrics_start_from_zero


def evaluate_and_predict_progress(tf):
    """evaluate and predict print TF 1.15's progress bars: a ProgbarLogger counting samples
    (arrays) or steps (datasets, generators) whose last line shows the loop's results; with
    verbose=2 one line at the end ('20/20 - 0s - loss: ...')."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    np.random.seed(0)
    model = _small_model(tf)
    x, y = _data(20)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)

    def batches():
        while True:
            yield x[:8], y[:8]

    calls = [
        ("evaluate_arrays", lambda v: model.evaluate(x, y, batch_size=8, verbose=v)),
        ("evaluate_dataset", lambda v: model.evaluate(ds, verbose=v)),
        ("evaluate_dataset_steps", lambda v: model.evaluate(ds.repeat(), steps=2, verbose=v)),
        ("evaluate_generator", lambda v: model.evaluate_generator(batches(), 2, verbose=v)),
        ("predict_arrays", lambda v: model.predict(x, batch_size=8, verbose=v).shape),
        ("predict_dataset", lambda v: model.predict(ds, verbose=v).shape),
    ]
    out = {}
    for name, call in calls:
        for verbose in (0, 1, 2):
            with captured() as c:
                result = call(verbose)
            out[name + "_" + str(verbose)] = {
                "lines": _bar_lines(c.stdout),
                "result": [float(v) for v in result],
            }
    return out


CASES["evaluate_and_predict_progress"] = evaluate_and_predict_progress


def single_batch_fed_in_order(tf):
    """TF 1.15's array loop does not slice when all the samples make one batch: it feeds them
    in their own order though its shuffle drew a permutation (training and validation alike),
    so a float32 loss sums in the data's order (it came out an ulp apart when fed shuffled)."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    np.random.seed(0)
    model = _small_model(tf)
    x, y = _data(20)
    out = {}
    for name, kwargs in (
        ("validation_split", dict(batch_size=8, validation_split=0.2)),
        ("one_training_batch", dict(batch_size=32)),
    ):
        np.random.seed(5)
        h = model.fit(x, y, epochs=3, verbose=0, **kwargs)
        out[name] = {"history": _history(h), "next_draw": float(np.random.random())}
    return out


CASES["single_batch_fed_in_order"] = single_batch_fed_in_order


def _new_ops(graph, before):
    """The ops made since `before`; Keras's checks of which variables are initialized are
    counted apart (TF 1.15 visits its variables in a weak set's order)."""
    ops = graph.get_operations()[before:]
    listed = [
        [op.name, op.type, [t.name for t in op.inputs]]
        for op in ops
        if op.type != "VarIsInitializedOp"
    ]
    return {"ops": listed, "initialized_checks": len(ops) - len(listed)}


def weights_checkpoint_graph(tf):
    """The save-and-restore tutorial: Model.save_weights in TF's format builds TF 1.15's
    cached TrackableSaver graph once per model (two fed constants, a shard per device,
    MergeV2Checkpoints) and again only when the object graph changed; load_weights restores
    slots one by one, then the rest from one RestoreV2 in key order, and weights the
    optimizer makes later (its first step) are restored as they are made. Every op counts
    toward later op seeds: a model made after a ModelCheckpoint fit draws TF's weights."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(0)
    np.random.seed(0)
    keras = tf.keras
    x = np.random.random((40, 20))
    y = np.random.randint(0, 10, 40)

    def create_model():
        model = keras.models.Sequential(
            [
                keras.layers.Dense(16, activation="relu", input_shape=(20,)),
                keras.layers.Dropout(0.2),
                keras.layers.Dense(10, activation="softmax"),
            ]
        )
        model.compile(
            optimizer=keras.optimizers.Adam(),
            loss=keras.losses.sparse_categorical_crossentropy,
            metrics=["accuracy"],
        )
        return model

    graph = tf.get_default_graph()
    session = tf.keras.backend.get_session()

    def draw():
        return float(session.run(tf.random_uniform([1]))[0])

    folder = tempfile.mkdtemp()
    out = {}
    try:
        first = create_model()
        before = len(graph.get_operations())
        first.save_weights(folder + "/e0")
        out["first_save_ops"] = _new_ops(graph, before)
        before = len(graph.get_operations())
        first.save_weights(folder + "/e0")
        out["second_save_ops"] = _new_ops(graph, before)
        checkpoint = keras.callbacks.ModelCheckpoint(
            folder + "/cp-{epoch:02d}", save_weights_only=True
        )
        first.fit(x, y, epochs=2, verbose=0, callbacks=[checkpoint])
        out["draw_after_checkpointed_fit"] = draw()
        second = create_model()
        out["draw_after_new_model"] = draw()
        before = len(graph.get_operations())
        second.load_weights(tf.train.latest_checkpoint(folder))
        out["load_ops"] = _new_ops(graph, before)
        out["evaluate"] = [float(v) for v in second.evaluate(x, y, verbose=0)]
        second.load_weights(folder + "/e0")
        second.fit(x, y, epochs=1, verbose=0)
        out["restored_iterations"] = int(session.run(second.optimizer.iterations))
        out["draw_after_restoring_fit"] = draw()
        with open(os.path.join(folder, "checkpoint")) as f:
            out["checkpoint_file"] = f.read()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


CASES["weights_checkpoint_graph"] = weights_checkpoint_graph


def bare_device_types(tf):
    """tf.device('CPU') (TF's checkpoint code uses it) names any device of the type."""
    out = {}
    for spec in ("CPU", "cpu", "GPU", "gpu:1", "GPU:*", "/job:w/CPU"):
        with tf.Graph().as_default(), tf.device(spec):
            out[spec] = tf.constant(1).device
    return out


CASES["bare_device_types"] = bare_device_types


def histogram_summaries(tf):
    """The TensorBoard histograms guide: a gamma distribution with alpha = k fed 0 at the first
    step (TF's sampler draws 0, lifted to float32's tiny; a histogram of NaN fails the step),
    the HistogramSummary error naming its node (a NaN or Infinity, the first one met), and the
    histogram's sum and sum of squares added one value after another in double."""
    tf.reset_default_graph()
    k = tf.placeholder(tf.float32)
    gamma = tf.random_gamma(shape=[5], alpha=k, seed=1)
    with tf.name_scope("sc"):
        infinite = tf.summary.histogram("t1", tf.constant([1.0, np.inf, np.nan]))
    not_a_number = tf.summary.histogram("t2", tf.constant([np.nan, np.inf]))
    rng = np.random.RandomState(4)
    values = (rng.standard_normal(1000) * 3).astype(np.float32)
    histogram = tf.summary.histogram("values", tf.constant(values))
    out = {}
    with tf.Session() as sess:
        out["gamma_of_zero"] = sess.run(gamma, {k: 0.0}).tolist()
        for name, op in (("infinity", infinite), ("nan", not_a_number)):
            try:
                sess.run(op)
                out[name] = None
            except tf.errors.InvalidArgumentError as e:
                out[name] = e.message.split("\n")[0]
        summary = tf.Summary()
        summary.ParseFromString(sess.run(histogram))
    h = summary.value[0].histo
    out["histogram"] = [h.min, h.max, h.num, h.sum, h.sum_squares, len(h.bucket)]
    return out


CASES["histogram_summaries"] = histogram_summaries


def complex_products_and_magnitudes(tf):
    """The Mandelbrot tutorial iterates z*z + x on complex64 and compares tf.abs(z) with 4:
    TF's Eigen kernels multiply as (ac - bd) + (ad + bc)i rounding each step in float32 and
    take the magnitude as hypot; the escape counts after 200 steps of a 52x60 grid."""
    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    shape = (40, 50)
    out = {}
    for dtype in (np.complex64, np.complex128):
        z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype) * 1.7
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        a, b = tf.constant(z), tf.constant(x)
        with tf.Session() as sess:
            product, square, magnitude = sess.run([a * b, a * a + b, tf.abs(a)])
        name = np.dtype(dtype).name
        out[name] = {
            "product": [product.real.tolist(), product.imag.tolist()],
            "square_plus": [square.real.tolist(), square.imag.tolist()],
            "abs": magnitude.tolist(),
        }
    y, x = np.mgrid[-1.3:1.3:0.05, -2:1:0.05]
    grid = (x + 1j * y).astype(np.complex64)
    xs = tf.constant(grid)
    zs = tf.Variable(xs)
    ns = tf.Variable(tf.zeros_like(xs, tf.float32))
    zs_ = zs * zs + xs
    not_diverged = tf.abs(zs_) < 4
    step = tf.group(zs.assign(zs_), ns.assign_add(tf.cast(not_diverged, tf.float32)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(200):
            sess.run(step)
        out["escape_counts"] = sess.run(ns).tolist()
    return out


CASES["complex_products_and_magnitudes"] = complex_products_and_magnitudes


def dataset_reprs(tf):
    """The TFRecord tutorial shows datasets in cells: TF 1.15 writes `<DatasetV1Adapter
    shapes: ..., types: ...>` (file datasets their own V1 class), shapes by str and types by
    repr in the element's structure, quotes dropped."""
    import collections

    tf.reset_default_graph()
    pair = collections.namedtuple("P", "a b")
    data = tf.data
    made = {
        "range": lambda: data.Dataset.range(3),
        "tfrecord": lambda: data.TFRecordDataset(["a"]),
        "textline": lambda: data.TextLineDataset("a"),
        "fixed_length": lambda: data.FixedLengthRecordDataset("a", 4),
        "csv": lambda: data.experimental.CsvDataset("a", [tf.float32]),
        "random": lambda: data.experimental.RandomDataset(1),
        "generator": lambda: data.Dataset.from_generator(lambda: iter([1]), tf.int64),
        "zip": lambda: data.Dataset.zip((data.Dataset.range(2), data.Dataset.range(2))),
        "tensors": lambda: data.Dataset.from_tensors(np.zeros((2, 3))),
        "batched": lambda: data.Dataset.range(3).shuffle(2).repeat().batch(2, True),
        "padded": lambda: (
            data.Dataset.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, [None])
        ),
        "strings": lambda: data.Dataset.from_tensor_slices(["a", "b"]),
        "dict": lambda: data.Dataset.from_tensor_slices({"x": [[1, 2]], "y": [3]}),
        "namedtuple": lambda: data.Dataset.from_tensors(pair(1, 2.0)),
        "nested": lambda: data.Dataset.from_tensor_slices(([1], [[2]])).map(
            lambda a, b: {"q": a, "p": (b, a)}
        ),
    }
    out = {name: repr(make()) for name, make in made.items()}
    # A dict element keeps its keys' order (sorted only to flatten): get_next, run results.
    mapped = data.Dataset.from_tensor_slices(([1], [[2]])).map(
        lambda a, b: {"q": a, "p": (b, a), "c": b}
    )
    sliced = data.Dataset.from_tensor_slices({"z": [1], "a": [2]})
    elements = [d.make_one_shot_iterator().get_next() for d in (mapped, sliced)]
    with tf.Session() as sess:
        values = sess.run(elements)
    out["element_keys"] = [list(e) for e in elements] + [list(v) for v in values]
    return out


CASES["dataset_reprs"] = dataset_reprs


def ragged_elementwise_dispatch(tf):
    """The Unicode tutorial calls tf.strings.unicode_script on the ragged code points of
    unicode_decode: TF 1.15's ragged_dispatch applies it (and the other unary and binary
    element-wise ops it lists: special functions, complex parts, base64, check_numerics,
    decode_compressed) to the flat values; tf.strings.to_number is not among them."""
    tf.reset_default_graph()
    rt = tf.ragged.constant([[0.5, 0.25], [], [0.75]])
    codes = tf.strings.unicode_decode(["Hи", "", "文"], "UTF-8")
    words = tf.ragged.constant([[b"1.5", b"2"], [b"3"]])
    cplx = tf.ragged.constant([[1 + 2j]])
    made = {
        "unicode_script": lambda: tf.strings.unicode_script(codes),
        "erf": lambda: tf.math.erf(rt),
        "erfc": lambda: tf.math.erfc(rt),
        "sinh": lambda: tf.math.sinh(rt),
        "cosh": lambda: tf.math.cosh(rt),
        "asinh": lambda: tf.math.asinh(rt),
        "acosh": lambda: tf.math.acosh(rt + 1),
        "atanh": lambda: tf.math.atanh(rt),
        "digamma": lambda: tf.math.digamma(rt),
        "lgamma": lambda: tf.math.lgamma(rt),
        "log_sigmoid": lambda: tf.math.log_sigmoid(rt),
        "rint": lambda: tf.math.rint(rt),
        "atan2": lambda: tf.math.atan2(rt, rt * 2),
        "complex_real": lambda: tf.math.real(tf.complex(rt, rt)),
        "imag": lambda: tf.math.imag(cplx),
        "angle": lambda: tf.math.angle(cplx),
        "base64": lambda: tf.io.decode_base64(tf.io.encode_base64(words)),
        "check_numerics": lambda: tf.debugging.check_numerics(rt, "m"),
        "to_number": lambda: tf.strings.to_number(words),
    }
    out = {}
    results = {}
    for name, make in made.items():
        try:
            results[name] = make()
        except TypeError as e:
            out[name] = type(e).__name__
    with tf.Session() as sess:
        values = sess.run(results)
    for name, value in values.items():
        out[name] = value.to_list()
    return out


CASES["ragged_elementwise_dispatch"] = ragged_elementwise_dispatch


def keras_weight_regularizers(tf):
    """The overfitting tutorial's l2 model: a Keras layer's kernel_regularizer makes no ops
    when the layer is built (TF 1.15 keeps a callable), so the next layer's kernel draws TF's
    initial values; compile reads the losses twice, each time making the penalty ops again
    under 'loss/<variable>/Regularizer'; none go to the REGULARIZATION_LOSSES collection."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(0)
    np.random.seed(0)
    keras = tf.keras
    graph = tf.get_default_graph()
    session = keras.backend.get_session()

    def draw():
        return float(session.run(tf.random_uniform([1]))[0])

    x = np.random.random((20, 10))
    y = np.random.randint(0, 2, 20)
    out = {}
    model = keras.models.Sequential(
        [
            keras.layers.Dense(
                4, kernel_regularizer=keras.regularizers.l2(0.001), activation="relu",
                input_shape=(10,),
            ),
            keras.layers.Dense(4, kernel_regularizer=keras.regularizers.l2(0.001)),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )  # fmt: skip
    out["draw_after_build"] = draw()
    out["collection"] = len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    before = len(graph.get_operations())
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    out["regularizer_ops"] = [
        op.name for op in graph.get_operations()[before:] if "Regularizer" in op.name
    ]
    out["draw_after_compile"] = draw()
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    out["history"] = {k: [float(v) for v in vs] for k, vs in sorted(history.history.items())}
    return out


CASES["keras_weight_regularizers"] = keras_weight_regularizers


SEED = 3
CASES["keras_estimator_of_a_tf_optimizer"] = keras_estimator_of_a_tf_optimizer
