"""Behaviours the TF 1.15 guides and tutorials of tensorflow/docs (site/en/r1: the Keras
guide, the Keras tutorials) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_guide_sweep.py and on tfcluster by
tests/unit/test_guide_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

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


SEED = 3
CASES["keras_estimator_of_a_tf_optimizer"] = keras_estimator_of_a_tf_optimizer
