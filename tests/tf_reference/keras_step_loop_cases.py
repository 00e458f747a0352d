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
