"""Keras's step-wise loops in TF 1.15: fit / evaluate / predict given numpy arrays and a
number of steps (TF warns, then runs every step on the whole arrays as one batch, in order),
and the generator and dataset loops, whose metrics run on across the batches. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_keras_step_loops.py and on
tfcluster by tests/unit/test_keras_step_loops.py. Python 3.7 code."""

from __future__ import annotations

import logging

import numpy as np

try:
    from tf_reference.case_tools import LoggedWarnings, captured
except ImportError:  # run as a script under TF 1.15
    from case_tools import LoggedWarnings, captured

CASES = {}


def _model(tf, metrics=()):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(3, input_shape=(2,), kernel_initializer="ones", activation="relu"),
         tf.keras.layers.Dense(1, kernel_initializer="ones")]
    )  # fmt: skip
    model.compile("sgd", "mse", metrics=list(metrics))
    return model


def _data():
    x = np.arange(40, dtype=np.float32).reshape(20, 2) / 40.0
    y = (np.arange(20) % 2).astype(np.float32)
    return x, y


def _weights(model):
    return [w.tolist() for w in model.get_weights()]


def _run(fn):
    warnings = LoggedWarnings()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(warnings)
    try:
        with captured() as out:
            result = fn()
    finally:
        logger.removeHandler(warnings)
    lines = [line.split(" - ")[0] for line in out.stdout.replace("\r", "\n").splitlines()]
    return result, [line for line in lines if line.strip()], warnings.messages


def fit_by_steps(tf):
    """fit(x, y, steps_per_epoch=3, epochs=2): three steps of the whole arrays per epoch, the
    loss averaged over the steps; batch_size is ignored."""
    x, y = _data()
    model = _model(tf, ["mae"])
    history, printed, warned = _run(
        lambda: model.fit(x, y, steps_per_epoch=3, epochs=2, verbose=2).history
    )
    after = _weights(model)
    history2, _, _ = _run(
        lambda: model.fit(x, y, batch_size=4, steps_per_epoch=2, epochs=1, verbose=0).history
    )
    return {
        "history": {k: [float(v) for v in vs] for k, vs in history.items()},
        "printed": printed,
        "warned": warned,
        "weights": after,
        "history_with_batch_size": {k: [float(v) for v in vs] for k, vs in history2.items()},
        "weights_after": _weights(model),
    }


CASES["fit_by_steps"] = fit_by_steps


def fit_by_steps_with_validation(tf):
    """Validation arrays with validation_steps, and a validation split: step-wise too."""
    x, y = _data()
    model = _model(tf, ["mae"])
    given, printed, _ = _run(
        lambda: model.fit(
            x, y, steps_per_epoch=2, validation_data=(x[:6], y[:6]), validation_steps=2,
            verbose=1,
        ).history
    )  # fmt: skip
    split, _, _ = _run(
        lambda: (
            model.fit(
                x, y, steps_per_epoch=2, validation_split=0.25, validation_steps=1, verbose=0
            ).history
        )
    )
    return {
        "given": {k: [float(v) for v in vs] for k, vs in given.items()},
        "printed": printed[:1],
        "split": {k: [float(v) for v in vs] for k, vs in split.items()},
        "weights": _weights(model),
    }


CASES["fit_by_steps_with_validation"] = fit_by_steps_with_validation


def evaluate_and_predict_by_steps(tf):
    """evaluate(steps=2): the loss averaged over two whole-array steps; predict(steps=3):
    the three steps' outputs concatenated."""
    x, y = _data()
    model = _model(tf, ["mae"])
    evaluated, _, warned = _run(lambda: model.evaluate(x, y, steps=2, verbose=0))
    evaluated_bs, _, _ = _run(lambda: model.evaluate(x, y, batch_size=5, steps=2, verbose=0))
    predicted, _, _ = _run(lambda: model.predict(x, steps=3))
    return {
        "evaluated": [float(v) for v in evaluated],
        "evaluated_with_batch_size": [float(v) for v in evaluated_bs],
        "warned": warned,
        "predicted": predicted.tolist(),
    }


CASES["evaluate_and_predict_by_steps"] = evaluate_and_predict_by_steps


def running_metrics_of_generator_and_dataset_loops(tf):
    """fit_generator, fit on a dataset, evaluate_generator and evaluate on a dataset with
    AUC and precision (metrics that are not means over batches): each batch's logs and the
    epoch's values are the metrics' running values, as is what train_on_batch adds to them
    after a fit."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    x = np.arange(46, dtype=np.float32).reshape(23, 2) / 46.0
    y = (np.arange(23) % 2).astype(np.float32)

    def batches():
        while True:
            for start in range(0, 23, 10):
                yield x[start : start + 10], y[start : start + 10]

    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(3, input_shape=(2,), kernel_initializer="ones", activation="relu"),
         tf.keras.layers.Dense(1, kernel_initializer="ones", activation="sigmoid")]
    )  # fmt: skip
    model.compile(
        "sgd", "binary_crossentropy",
        metrics=["acc", tf.keras.metrics.AUC(), tf.keras.metrics.Precision()],
    )  # fmt: skip
    seen = []

    def on_batch_end(batch, logs=None):
        seen.append({k: float(v) for k, v in logs.items() if k not in ("batch", "size")})

    record = tf.keras.callbacks.LambdaCallback(on_batch_end=on_batch_end)
    out = {}
    history = model.fit_generator(
        batches(), steps_per_epoch=3, epochs=2, verbose=0, callbacks=[record]
    ).history
    out["fit_generator"] = {k: [float(v) for v in vs] for k, vs in history.items()}
    out["train_on_batch_after"] = [float(v) for v in model.train_on_batch(x[:5], y[:5])]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(10)
    history = model.fit(dataset, epochs=1, verbose=0, callbacks=[record]).history
    out["fit_dataset"] = {k: [float(v) for v in vs] for k, vs in history.items()}
    out["batch_logs"] = seen
    out["evaluate_generator"] = [float(v) for v in model.evaluate_generator(batches(), steps=3)]
    out["evaluate_dataset"] = [float(v) for v in model.evaluate(dataset, verbose=0)]
    return out


CASES["running_metrics_of_generator_and_dataset_loops"] = (
    running_metrics_of_generator_and_dataset_loops
)


def _ops_since(graph, start):
    return [[op.name, op.type] for op in graph.get_operations()[start:]]


def dataset_loops_build_tfs_graph(tf):
    """fit / evaluate / predict on datasets of float64 inputs and int64 labels (sparse loss):
    the ops each builds, in order (steps inferred through DatasetCardinality only without
    steps, the labels' ExpandDims, the Casts to the model's dtypes after its function is
    built), and a random draw made afterwards (its op seed follows the op count)."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    rng = np.random.RandomState(3)
    x = rng.random_sample((24, 4))
    y = rng.randint(0, 3, 24)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax", input_shape=(4,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])  # fmt: skip
    graph = tf.get_default_graph()
    out = {}
    finite = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    start = len(graph.get_operations())
    out["fit_history"] = model.fit(finite, epochs=2, verbose=0).history
    out["fit_ops"] = _ops_since(graph, start)
    endless = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    start = len(graph.get_operations())
    history = model.fit(endless, epochs=2, steps_per_epoch=2, verbose=0,
                        validation_data=endless, validation_steps=2).history  # fmt: skip
    out["fit_steps_history"] = history
    out["fit_steps_ops"] = _ops_since(graph, start)
    start = len(graph.get_operations())
    out["evaluate"] = model.evaluate(endless, steps=2, verbose=0)
    out["evaluate_ops"] = _ops_since(graph, start)
    start = len(graph.get_operations())
    predictions = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(8))
    out["predict"] = predictions.tolist()
    out["predict_ops"] = _ops_since(graph, start)
    draw = tf.random_uniform([3])
    out["draw"] = [draw.op.name, tf.keras.backend.get_session().run(draw).tolist()]
    out["history_values"] = {
        k: [float(v) for v in vs]
        for h in ("fit_history", "fit_steps_history")
        for k, vs in sorted(out.pop(h).items())
    }
    out["evaluate"] = [float(v) for v in out["evaluate"]]
    return out


CASES["dataset_loops_build_tfs_graph"] = dataset_loops_build_tfs_graph


def validation_dataset_restarts_every_epoch(tf):
    """fit's validation dataset, repeated and longer than validation_steps, starts from its
    first batch at every validation (TF 1.15 reinitializes its iterator): each validation
    batch's loss and the epochs' val_ values."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    rng = np.random.RandomState(5)
    x = rng.random_sample((32, 4)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 32)]
    vx = rng.random_sample((10, 4)).astype(np.float32)
    vy = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 10)]
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax", input_shape=(4,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "categorical_crossentropy",
                  metrics=["accuracy"])  # fmt: skip
    seen = []
    record = tf.keras.callbacks.LambdaCallback()
    record.on_test_batch_end = lambda batch, logs=None: seen.append(
        [batch, float(logs["loss"]), float(logs["acc"])]
    )
    train = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    val = tf.data.Dataset.from_tensor_slices((vx, vy)).batch(4).repeat()
    history = model.fit(train, epochs=3, steps_per_epoch=2, validation_data=val,
                        validation_steps=2, verbose=0, callbacks=[record]).history  # fmt: skip
    return {
        "validation_batches": seen,
        "history": {k: [float(v) for v in vs] for k, vs in sorted(history.items())},
    }


CASES["validation_dataset_restarts_every_epoch"] = validation_dataset_restarts_every_epoch


def batch_logs_hold_the_sessions_numpy_scalars(tf):
    """What a callback printing its batch logs shows: the loss and metrics as the session's
    numpy float32 values (repr 1.3117626, not a Python float's 17 digits), for fit on arrays,
    on a dataset, fit_generator and evaluate."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    rng = np.random.RandomState(7)
    x = rng.random_sample((16, 4))
    y = np.eye(3)[rng.randint(0, 3, 16)]
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax", input_shape=(4,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "categorical_crossentropy",
                  metrics=["accuracy"])  # fmt: skip
    shown = []

    def show(kind):
        def callback(batch, logs=None):
            shown.append([kind, repr({k: v for k, v in sorted(logs.items())})])

        return callback

    record = tf.keras.callbacks.LambdaCallback(on_batch_end=show("train"))
    record.on_test_batch_end = show("test")

    def batches():
        while True:
            yield x[:8], y[:8]

    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0, callbacks=[record])
    model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(8), epochs=1, verbose=0,
              callbacks=[record])  # fmt: skip
    model.fit_generator(batches(), steps_per_epoch=1, epochs=1, verbose=0, callbacks=[record])
    model.evaluate(x, y, batch_size=8, verbose=0, callbacks=[record])
    return {"shown": shown}


CASES["batch_logs_hold_the_sessions_numpy_scalars"] = batch_logs_hold_the_sessions_numpy_scalars


def multi_output_losses_are_running_means(tf):
    """A two-output model's `<output>_loss` values are Mean metrics in TF 1.15: running means
    across an epoch's batches, shown and logged as they stand (never averaged again) by the
    arrays, generator and dataset loops' progress bars, epoch logs and evaluate results."""
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.set_random_seed(3)
    rng = np.random.RandomState(0)
    x = rng.random_sample((64, 8)).astype(np.float32)
    y = rng.randint(0, 3, size=(64,))
    y2 = rng.random_sample((64, 1)).astype(np.float32)
    inputs = tf.keras.Input(shape=(8,), name="dense_in")
    hidden = tf.keras.layers.Dense(16, activation="relu")(inputs)
    cls = tf.keras.layers.Dense(3, activation="softmax", name="cls")(hidden)
    reg = tf.keras.layers.Dense(1, name="reg")(hidden)
    model = tf.keras.Model(inputs, [cls, reg])
    model.compile("sgd", ["sparse_categorical_crossentropy", "mse"], metrics={"cls": "accuracy"})
    epochs = []
    record = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda e, logs: epochs.append(
            {k: round(float(v), 5) for k, v in sorted(logs.items())}
        )
    )

    def batches():
        while True:
            for i in range(0, 64, 16):
                yield x[i : i + 16], [y[i : i + 16], y2[i : i + 16]]

    def loops():
        model.fit(x, [y, y2], batch_size=16, epochs=1, shuffle=False, verbose=2,
                  callbacks=[record])  # fmt: skip
        model.fit_generator(batches(), steps_per_epoch=4, epochs=1, verbose=2, callbacks=[record])
        data = tf.data.Dataset.from_tensor_slices((x, (y, y2))).batch(16).repeat()
        model.fit(data, steps_per_epoch=4, epochs=1, verbose=2, callbacks=[record])
        evaluated = model.evaluate(x, [y, y2], batch_size=16, verbose=0)
        generated = model.evaluate_generator(batches(), steps=4, verbose=0)
        return [[round(float(v), 5) for v in r] for r in (evaluated, generated)]

    with captured() as out:
        evaluated = loops()
    # The epoch lines' values (verbose=2), without their timings.
    lines = [
        line.split(" - ", 2)[-1]
        for line in out.stdout.replace("\r", "\n").splitlines()
        if " - loss: " in line
    ]
    return {"epochs": epochs, "evaluated": evaluated, "lines": lines}


CASES["multi_output_losses_are_running_means"] = multi_output_losses_are_running_means


def learning_rate_scheduler_logs_the_rate(tf):
    """LearningRateScheduler sets the rate at each epoch's start and puts it in the epoch's
    logs (`lr`, a float32), so History records it next to the losses."""
    x, y = _data()
    model = _model(tf)
    schedule = tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.1 * (0.5**epoch))
    history = model.fit(
        x, y, batch_size=10, epochs=3, shuffle=False, verbose=0, callbacks=[schedule]
    )
    return {
        "history": {
            k: [round(float(v), 6) for v in vs] for k, vs in sorted(history.history.items())
        },
        "lr_type": type(history.history["lr"][0]).__name__,
    }


CASES["learning_rate_scheduler_logs_the_rate"] = learning_rate_scheduler_logs_the_rate


def generator_epoch_loss_sums_batches_in_float64(tf):
    """fit_generator's epoch loss: each batch's float32 loss times its size summed in float64
    (numpy 1.x promotes float32 * int to float64), over batches of unequal sizes; the exact
    digits, as repr shows them."""
    x, y = _data()
    model = _model(tf)
    sizes = [3, 7, 4, 6]

    def batches():
        while True:
            start = 0
            for size in sizes:
                yield x[start : start + size], y[start : start + size]
                start += size

    history = model.fit_generator(batches(), steps_per_epoch=len(sizes), epochs=2, verbose=0)
    return {
        "loss_reprs": [repr(float(v)) for v in history.history["loss"]],
        "loss_types": [type(v).__name__ for v in history.history["loss"]],
    }


CASES["generator_epoch_loss_sums_batches_in_float64"] = generator_epoch_loss_sums_batches_in_float64
