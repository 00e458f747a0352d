"""Which hooks of a Keras callback TF 1.15's loops call, in what order, with what arguments
(positional or `logs=`) and what logs: fit with validation, evaluate and predict, on arrays,
generators and datasets, and LambdaCallback's batch hooks, which TF's Callback calls with
`logs=` as a keyword. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_keras_callback_hooks.py and on tfcluster by tests/unit/test_keras_callback_hooks.py.
Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.keras_step_loop_cases import _model as step_loop_model
except ImportError:  # run as a script under TF 1.15
    from keras_step_loop_cases import _model as step_loop_model

CASES = {}

_HOOKS = [
    "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
    "on_test_begin", "on_test_end", "on_predict_begin", "on_predict_end",
    "on_batch_begin", "on_batch_end",
    "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin", "on_test_batch_end",
    "on_predict_batch_begin", "on_predict_batch_end",
]  # fmt: skip


def _plain_logs(logs):
    if logs is None:
        return None
    out = {}
    for key in sorted(logs):
        value = logs[key]
        if isinstance(value, (list, tuple)):
            out[key] = [f"{type(v).__name__} {np.shape(v)}" for v in value]
        elif isinstance(value, np.ndarray) and value.ndim > 0:
            out[key] = f"ndarray {value.shape}"
        else:
            out[key] = round(float(value), 5)
    return out


def _recorder(tf, calls):
    """A Callback whose every hook records its call; the batch hooks that TF's Callback
    forwards (on_train_batch_* to on_batch_*) are recorded apart so the forwarding shows."""

    def make(name):
        def hook(self, *args, **kwargs):
            logs = kwargs.get("logs", args[-1] if args and isinstance(args[-1], dict) else None)
            index = args[0] if args and not isinstance(args[0], dict) else None
            call = [name, len(args), sorted(kwargs), index, _plain_logs(logs)]
            if name.endswith("_begin") and "batch" not in name and "epoch" not in name:
                # What the loop set before its first hook: set_params' dict.
                call.append({k: self.params[k] for k in sorted(self.params)})
            calls.append(call)

        return hook

    namespace = {name: make(name) for name in _HOOKS}
    return type("Recorder", (tf.keras.callbacks.Callback,), namespace)()


def _forwarding(tf, calls):
    """A Callback overriding only on_batch_begin/on_batch_end: what the base class's
    on_train_batch_* hand over."""

    class Forwarded(tf.keras.callbacks.Callback):
        def on_batch_begin(self, batch, *args, **kwargs):
            calls.append(["forwarded_begin", batch, len(args), sorted(kwargs)])

        def on_batch_end(self, batch, *args, **kwargs):
            calls.append(["forwarded_end", batch, len(args), sorted(kwargs)])

    return Forwarded()


def _model(tf):
    """The step-loop cases' two-layer model, with mean absolute error as its metric."""
    return step_loop_model(tf, ["mae"])


def _data():
    x = np.arange(24, dtype=np.float32).reshape(12, 2) / 24.0
    y = (np.arange(12) % 2).astype(np.float32)
    return x, y


def hooks_of_array_loops(tf):
    """fit on arrays with validation arrays (two epochs), then evaluate and predict on arrays
    with callbacks. Both shuffle with numpy's generator: seeded."""
    np.random.seed(3)
    x, y = _data()
    model = _model(tf)
    calls = []
    callbacks = [_recorder(tf, calls), _forwarding(tf, calls)]
    model.fit(x, y, batch_size=5, epochs=2, validation_data=(x[:7], y[:7]), verbose=0,
              callbacks=callbacks)  # fmt: skip
    out = {"fit": calls[:]}
    del calls[:]
    model.evaluate(x, y, batch_size=5, verbose=0, callbacks=callbacks)
    out["evaluate"] = calls[:]
    del calls[:]
    model.predict(x, batch_size=5, callbacks=callbacks)
    out["predict"] = calls[:]
    return out


CASES["hooks_of_array_loops"] = hooks_of_array_loops


def hooks_of_generator_loops(tf):
    """fit_generator with a validation generator, evaluate_generator and predict_generator
    with callbacks."""
    x, y = _data()
    model = _model(tf)

    def batches():
        while True:
            for start in range(0, 12, 5):
                yield x[start : start + 5], y[start : start + 5]

    def inputs():
        while True:
            for start in range(0, 12, 5):
                yield x[start : start + 5]

    calls = []
    callbacks = [_recorder(tf, calls)]
    model.fit_generator(batches(), steps_per_epoch=3, epochs=1, validation_data=batches(),
                        validation_steps=2, verbose=0, callbacks=callbacks)  # fmt: skip
    out = {"fit_generator": calls[:]}
    del calls[:]
    model.evaluate_generator(batches(), steps=2, callbacks=callbacks)
    out["evaluate_generator"] = calls[:]
    del calls[:]
    model.predict_generator(inputs(), steps=2, callbacks=callbacks)
    out["predict_generator"] = calls[:]
    return out


CASES["hooks_of_generator_loops"] = hooks_of_generator_loops


def hooks_of_dataset_loops(tf):
    """fit on a dataset with a validation dataset, evaluate and predict on datasets with
    callbacks."""
    x, y = _data()
    model = _model(tf)
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)
    calls = []
    callbacks = [_recorder(tf, calls)]
    model.fit(data, epochs=1, validation_data=data, verbose=0, callbacks=callbacks)
    out = {"fit": calls[:]}
    del calls[:]
    model.evaluate(data, verbose=0, callbacks=callbacks)
    out["evaluate"] = calls[:]
    del calls[:]
    model.predict(tf.data.Dataset.from_tensor_slices(x).batch(5), callbacks=callbacks)
    out["predict"] = calls[:]
    return out


CASES["hooks_of_dataset_loops"] = hooks_of_dataset_loops


def lambda_callback_batch_hooks_take_logs_by_keyword(tf):
    """LambdaCallback's batch hooks are called as on_batch_end(batch, logs=logs): a lambda
    whose second parameter has another name fails with TypeError; its epoch hooks are called
    positionally."""
    x, y = _data()
    out = {}
    seen = []
    for hook in ("on_batch_end", "on_epoch_end", "on_batch_begin", "on_epoch_begin"):
        model = _model(tf)
        callback = tf.keras.callbacks.LambdaCallback(
            **{hook: lambda index, l, _h=hook: seen.append([_h, index, sorted(l)])}
        )
        try:
            model.fit(x, y, batch_size=6, epochs=1, verbose=0, callbacks=[callback])
            out[hook] = "ran"
        except TypeError as e:
            out[hook] = "TypeError: {}".format(str(e).split("() ")[-1])
    out["seen"] = seen
    return out


CASES["lambda_callback_batch_hooks_take_logs_by_keyword"] = (
    lambda_callback_batch_hooks_take_logs_by_keyword
)
