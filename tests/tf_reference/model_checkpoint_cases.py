"""tf.keras.callbacks.ModelCheckpoint as TF 1.15's: saving every `save_freq` samples (the
epoch in the file name is the epoch running), `period`, save_best_only without the monitored
value, a subclassed model saving its weights only, load_weights_on_restart loading the latest
matching file before training, the deprecation and unknown-mode warnings, and the ValueError
of an unknown save_freq. Written once for TF 1.15 (record_model_checkpoint.py) and tfcluster
(tests/unit/test_model_checkpoint.py); kept runnable on Python 3.7."""

import os
import shutil
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import LoggedWarnings, registrar
except ImportError:
    from case_tools import LoggedWarnings, registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _model(tf):
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")]
    )
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    return model


def _data():
    x = np.arange(32, dtype="float32").reshape(16, 2) / 32.0
    return x, x.sum(1, keepdims=True)


def _run(tf, make_callback, model=None, epochs=2):
    directory = tempfile.mkdtemp()
    try:
        with LoggedWarnings() as warnings:
            model = model or _model(tf)
            callback = make_callback(directory)
            x, y = _data()
            model.fit(x, y, batch_size=4, epochs=epochs, verbose=0, shuffle=False,
                      callbacks=[callback])  # fmt: skip
        return {
            "files": sorted(os.listdir(directory)),
            # (TF's deprecation notices of the names a program reads left out)
            "warnings": [m for m in warnings.messages if not m.startswith("From ")],
            "save_weights_only": callback.save_weights_only,
            "attributes": [callback.save_freq, callback.period, callback.load_weights_on_restart],
        }
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@case
def saves_every_save_freq_samples(tf):
    return _run(
        tf,
        lambda d: tf.keras.callbacks.ModelCheckpoint(
            os.path.join(d, "w.{epoch:02d}.h5"), save_freq=8, save_weights_only=True
        ),
    )


@case
def period_and_unknown_mode(tf):
    return _run(
        tf,
        lambda d: tf.keras.callbacks.ModelCheckpoint(
            os.path.join(d, "m.{epoch:02d}.h5"), period=2, mode="sideways"
        ),
        epochs=4,
    )


@case
def save_best_only_without_the_monitored_value(tf):
    return _run(
        tf,
        lambda d: tf.keras.callbacks.ModelCheckpoint(
            os.path.join(d, "best.h5"), monitor="val_loss", save_best_only=True
        ),
    )


@case
def subclassed_model_saves_weights_only(tf):
    class Small(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            return self.d(x)

    model = Small()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    return _run(tf, lambda d: tf.keras.callbacks.ModelCheckpoint(os.path.join(d, "s.h5")), model)


@case
def load_weights_on_restart(tf):
    directory = tempfile.mkdtemp()
    try:
        x, y = _data()
        first = _model(tf)
        first.fit(x, y, batch_size=4, epochs=3, verbose=0, shuffle=False)
        first.save_weights(os.path.join(directory, "r.01.h5"))
        saved = [w.tolist() for w in first.get_weights()]
        second = _model(tf)
        callback = tf.keras.callbacks.ModelCheckpoint(
            os.path.join(directory, "r.{epoch:02d}.h5"),
            save_weights_only=True,
            load_weights_on_restart=True,
        )
        callback.set_model(second)
        callback.on_train_begin()
        return {"loaded": [w.tolist() for w in second.get_weights()] == saved}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@case
def unknown_save_freq(tf):
    try:
        tf.keras.callbacks.ModelCheckpoint("x.h5", save_freq="batch")
        return {"error": None}
    except ValueError as e:
        return {"error": str(e)}
