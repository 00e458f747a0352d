"""Keras models that feed themselves in TF 1.15's graph mode: built on
`Input(tensor=...)` (a constant, a tf.data iterator's get_next()) and compiled with
`target_tensors` (a list, a dict, one tensor), trained, evaluated and run with x=None and a
number of steps, or batch by batch with `*_on_batch(None)`; a model mixing a tensor input with
a placeholder input fed by arrays; TF's errors when steps are missing, when a batch size is
not the Input's, and when a placeholder input gets no array; the callback parameters of the
loops. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_keras_tensor_inputs.py and on tfcluster by tests/unit/test_keras_tensor_inputs.py.
Python 3.7 code."""

from __future__ import annotations

import logging
import re

import numpy as np

try:
    from tf_reference.case_tools import LoggedWarnings, captured, error
except ImportError:  # run as a script under TF 1.15
    from case_tools import LoggedWarnings, captured, error

CASES = {}


def _fresh(tf):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()


def _dense_model_and_data(tf):
    """A compiled one-Dense model on a placeholder Input, 16 samples of arrays, and the same
    samples as constant tensors: (model, x, y, tx, ty)."""
    _fresh(tf)
    rng = np.random.RandomState(0)
    x = rng.rand(16, 3).astype(np.float32)
    y = rng.rand(16, 1).astype(np.float32)
    inp = tf.keras.layers.Input(shape=(3,))
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="d")(inp)
    model = tf.keras.Model(inp, out)
    model.compile("sgd", "mse", metrics=["mae"])
    return model, x, y, tf.constant(x), tf.constant(y)


def _data():
    rng = np.random.RandomState(1)
    return rng.rand(40, 3).astype(np.float32), rng.rand(40, 2).astype(np.float32)


def _line(line):
    """A progress line without its timing (`- 0s 476us/step`, `- 0s`) and ETA."""
    line = re.sub(r" - \d+s( \d+[mu]?s/step)?", "", line)
    return re.sub(r" - ETA: \S+", "", line)


def _unfinished(line):
    match = re.match(r"\s*(\d+)/(\d+) \[", line)
    return bool(match) and match.group(1) != match.group(2)


def _run(fn):
    """(fn's result, the lines it printed, the warnings TF logged)."""
    warnings = LoggedWarnings()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(warnings)
    try:
        with captured() as out:
            result = fn()
    finally:
        logger.removeHandler(warnings)
    text = out.stdout.replace("\r", "\n").replace("\b", "")
    lines = [_line(line) for line in text.splitlines() if line.strip()]
    # A bar's updates before its end depend on time (Progbar draws every 0.05 s): its last.
    lines = [line for line in lines if not _unfinished(line)]
    return result, lines, [m for m in warnings.messages if "deprecat" not in m]


def _history(history):
    return {k: [float(v) for v in vs] for k, vs in history.history.items()}


def _floats(values):
    return [float(v) for v in np.ravel(values)]


def _arrays(values):
    if isinstance(values, list):
        return [np.asarray(v) for v in values]
    return np.asarray(values)


def constant_inputs_list_target(tf):
    """Input(tensor=<constant>), target_tensors=[<constant>]: fit / evaluate / predict by
    steps, the *_on_batch calls with None, and TF's ValueErrors without steps."""
    _fresh(tf)
    x, y = _data()
    inp = tf.keras.layers.Input(tensor=tf.constant(x[:32, :]))
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="d")(inp)
    model = tf.keras.Model(inp, out)
    model.compile("sgd", "mse", target_tensors=[tf.constant(y[:32, :1])], metrics=["mae"])
    errors = {
        "fit": error(lambda: model.fit(epochs=1)),
        "evaluate": error(lambda: model.evaluate()),
        "predict": error(lambda: model.predict(None)),
        "fit_batch_size": error(lambda: model.fit(None, None, batch_size=4, epochs=1)),
    }
    history, printed, warned = _run(lambda: model.fit(steps_per_epoch=3, epochs=2, verbose=2))
    history1, printed1, _ = _run(lambda: model.fit(steps_per_epoch=2, epochs=1, verbose=1))
    evaluated, printed_eval, _ = _run(lambda: model.evaluate(steps=2, verbose=1))
    return {
        "layers": [layer.name for layer in model.layers],
        "input_names": list(model.input_names),
        "input_is_the_tensor": model.inputs[0].op.type,
        "metrics_names": list(model.metrics_names),
        "errors": errors,
        "history": _history(history),
        "params": dict(history.params),
        "printed": printed,
        "warned": warned,
        "history_verbose_1": _history(history1),
        "printed_verbose_1": printed1,
        "evaluate": _floats(evaluated),
        "printed_evaluate": printed_eval,
        "predict": _arrays(model.predict(None, steps=2)),
        "train_on_batch": _floats(model.train_on_batch(None)),
        "test_on_batch": _floats(model.test_on_batch(None)),
        "predict_on_batch": _arrays(model.predict_on_batch(None)),
        "weights": [w.tolist() for w in model.get_weights()],
    }


CASES["constant_inputs_list_target"] = constant_inputs_list_target


def iterator_inputs_single_target(tf):
    """The classic TF1 pattern: x and y from a dataset iterator's get_next(), one target
    tensor; each step draws the next batch. A batch size given with steps is ignored;
    predict's loop zeroes the metrics, so train_on_batch after it reports its batch only."""
    _fresh(tf)
    x, y = _data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    bx, by = tf.data.make_one_shot_iterator(ds).get_next()
    inp = tf.keras.layers.Input(tensor=bx)
    h = tf.keras.layers.Dense(4, activation="relu", kernel_initializer="ones", name="h")(inp)
    init = tf.keras.initializers.Constant(0.1)
    out = tf.keras.layers.Dense(2, kernel_initializer=init, name="o")(h)
    model = tf.keras.Model(inp, out)
    model.compile(tf.keras.optimizers.SGD(0.05), "mse", target_tensors=by, metrics=["mae"])
    history, printed, _ = _run(lambda: model.fit(steps_per_epoch=5, epochs=3, verbose=1))
    evaluated = model.evaluate(steps=5, verbose=0)
    predicted, printed_predict, _ = _run(lambda: model.predict(None, steps=3, verbose=1))
    result = {
        "input_shape": inp.shape.as_list(),
        "history": _history(history),
        "params": dict(history.params),
        "printed": printed,
        "evaluate": _floats(evaluated),
        "predict": _arrays(predicted),
        "printed_predict": printed_predict,
        "train_on_batch": _floats(model.train_on_batch(None)),
        "test_on_batch": _floats(model.test_on_batch(None)),
        "predict_on_batch": _arrays(model.predict_on_batch(None)),
    }
    fit_bs, printed_bs, _ = _run(lambda: model.fit(steps_per_epoch=1, batch_size=8))
    result["fit_with_batch_size"] = _history(fit_bs)
    result["printed_with_batch_size"] = printed_bs
    result["evaluate_with_batch_size"] = _floats(model.evaluate(steps=1, batch_size=8, verbose=0))
    result["predict_with_batch_size"] = list(model.predict(None, steps=1, batch_size=8).shape)
    result["predict_batch_size_no_steps"] = error(lambda: model.predict(None, batch_size=8))
    return result


CASES["iterator_inputs_single_target"] = iterator_inputs_single_target


def dict_targets_two_outputs(tf):
    """Two outputs, target_tensors as a dict by output name."""
    _fresh(tf)
    x, y = _data()
    inp = tf.keras.layers.Input(tensor=tf.constant(x[:16]), name="feat")
    o1 = tf.keras.layers.Dense(2, kernel_initializer="ones", name="a")(inp)
    o2 = tf.keras.layers.Dense(1, kernel_initializer="zeros", name="b")(inp)
    model = tf.keras.Model(inp, [o1, o2])
    targets = {"a": tf.constant(y[:16]), "b": tf.constant(x[:16, :1])}
    model.compile("sgd", "mse", target_tensors=targets)
    history, printed, _ = _run(lambda: model.fit(steps_per_epoch=2, epochs=2, verbose=2))
    return {
        "metrics_names": list(model.metrics_names),
        "input_names": list(model.input_names),
        "history": _history(history),
        "printed": printed,
        "evaluate": _floats(model.evaluate(steps=1, verbose=0)),
        "predict": _arrays(model.predict(None, steps=2)),
        "predict_on_batch": _arrays(model.predict_on_batch(None)),
        "test_on_batch": _floats(model.test_on_batch(None)),
    }


CASES["dict_targets_two_outputs"] = dict_targets_two_outputs


def sequential_on_input_layer_tensor(tf):
    """A Sequential starting with InputLayer(input_tensor=...): the Input's batch size (10)
    refuses another one."""
    _fresh(tf)
    x, y = _data()
    layer = tf.keras.layers.InputLayer(input_tensor=tf.constant(x[:10]))
    dense = tf.keras.layers.Dense(2, kernel_initializer="ones", name="sd")
    model = tf.keras.Sequential([layer, dense])
    model.compile("adam", "mae", target_tensors=tf.constant(y[:10]))
    errors = {
        "fit": error(lambda: model.fit(epochs=1, verbose=0)),
        "fit_batch_size": error(lambda: model.fit(batch_size=4, verbose=0)),
    }
    history, printed, _ = _run(lambda: model.fit(steps_per_epoch=2, epochs=2, verbose=2))
    evaluated, printed_eval, _ = _run(lambda: model.evaluate(steps=1, verbose=1))
    return {
        "layers": [layer.name for layer in model.layers],
        "input_names": list(model.input_names),
        "errors": errors,
        "history": _history(history),
        "printed": printed,
        "evaluate": _floats(evaluated),
        "printed_evaluate": printed_eval,
    }


CASES["sequential_on_input_layer_tensor"] = sequential_on_input_layer_tensor


def tensor_and_placeholder_inputs(tf):
    """One Input(tensor=...) and one placeholder Input: arrays feed the placeholder only; with
    no array for it TF fails making its feed (TypeError), steps or not."""
    _fresh(tf)
    x, y = _data()
    t_in = tf.keras.layers.Input(tensor=tf.constant(x[:8]))
    p_in = tf.keras.layers.Input(shape=(3,), name="fed")
    added = tf.keras.layers.Add()([t_in, p_in])
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="out")(added)
    model = tf.keras.Model([t_in, p_in], out)
    model.compile("sgd", "mse")
    fed, target = x[8:16], y[8:16, :1]
    history, printed, _ = _run(lambda: model.fit(fed, target, epochs=2, batch_size=8, verbose=2))
    return {
        "input_names": list(model.input_names),
        "layers": [layer.name for layer in model.layers],
        "history": _history(history),
        "printed": printed,
        "evaluate": float(model.evaluate(fed, target, verbose=0)),
        "predict": _arrays(model.predict(fed)),
        "train_on_batch": float(model.train_on_batch(fed, target)),
        "fit_as_list": _history(model.fit([fed], target, epochs=1, verbose=0)),
        "no_array_fit": error(lambda: model.fit(epochs=1, verbose=0, steps_per_epoch=1)),
        "no_array_evaluate": error(lambda: model.evaluate(steps=1, verbose=0)),
        "no_array_predict": error(lambda: model.predict(None, steps=1)),
        "no_array_no_steps": error(lambda: model.fit(verbose=0)),
    }


CASES["tensor_and_placeholder_inputs"] = tensor_and_placeholder_inputs


def loop_callback_params(tf):
    """The parameters fit's callbacks get, in TF's order, `verbose` being fit's: arrays,
    a generator, arrays by steps."""
    _fresh(tf)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    seen = []

    class Params(tf.keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(sorted(self.params.items()))

    def gen():
        while True:
            yield np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)

    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    fits = [
        lambda: model.fit(x, y, epochs=1, verbose=2, callbacks=[Params()]),
        lambda: model.fit_generator(gen(), steps_per_epoch=1, verbose=2, callbacks=[Params()]),
        lambda: model.fit(x, y, steps_per_epoch=1, verbose=0, callbacks=[Params()]),
    ]
    histories = []
    for fit in fits:
        history, _, _ = _run(fit)
        histories.append([[k, v] for k, v in history.params.items()])
    return {"on_train_begin": [[list(kv) for kv in s] for s in seen], "history": histories}


CASES["loop_callback_params"] = loop_callback_params


def _same(a, b):
    return a, b


def dataset_fit_shuffle_warning(tf):
    """fit(dataset) with shuffle=True (the default) warns when no shuffle feeds the dataset
    (shuffle_and_repeat counts); shuffle=False and evaluate do not check."""
    _fresh(tf)
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")]
    )
    model.compile("sgd", "mse")
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    plain = tf.data.Dataset.from_tensor_slices((x, y)).batch(2).repeat()
    shuffled = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(4, seed=1)
    fused = tf.data.experimental.shuffle_and_repeat(4, seed=1)
    calls = {
        "plain": lambda: model.fit(plain, steps_per_epoch=2, verbose=0),
        "shuffle_false": lambda: model.fit(plain, steps_per_epoch=2, verbose=0, shuffle=False),
        "shuffled": lambda: model.fit(shuffled.batch(2), verbose=0),
        "shuffled_then_mapped": lambda: model.fit(shuffled.map(_same).batch(2), verbose=0),
        "shuffle_and_repeat": lambda: model.fit(
            tf.data.Dataset.from_tensor_slices((x, y)).apply(fused).batch(2),
            steps_per_epoch=1,
            verbose=0,
        ),
        "evaluate": lambda: model.evaluate(plain, steps=1, verbose=0),
    }
    warned = {}
    for name, call in calls.items():
        _, _, messages = _run(call)
        warned[name] = [m for m in messages if m.startswith("Expected a shuffled")]
    return {"warned": warned}


CASES["dataset_fit_shuffle_warning"] = dataset_fit_shuffle_warning


def data_tensors_as_x_and_y(tf):
    """Symbolic tensors given as fit / evaluate / predict's x and y: TF wants steps, then
    runs them into the placeholders at every step; *_on_batch take them too. An Input made
    on a placeholder (Input(tensor=...)) is not fed: arrays for it are refused."""
    model, x, y, tx, ty = _dense_model_and_data(tf)
    errors = {
        "fit": error(lambda: model.fit(tx, ty, epochs=1, verbose=0)),
        "evaluate": error(lambda: model.evaluate(tx, ty, verbose=0)),
        "predict": error(lambda: model.predict(tx)),
    }
    history, printed, warned = _run(
        lambda: model.fit(tx, ty, steps_per_epoch=2, epochs=2, verbose=2)
    )
    result = {
        "errors": errors,
        "history": _history(history),
        "params": dict(history.params),
        "printed": printed,
        "warned": warned,
        "evaluate": _floats(model.evaluate(tx, ty, steps=2, verbose=0)),
        "predict": _arrays(model.predict(tx, steps=1)),
        "train_on_batch": _floats(model.train_on_batch(tx, ty)),
        "test_on_batch": _floats(model.test_on_batch(tx, ty)),
        "predict_on_batch": _arrays(model.predict_on_batch(tx)),
    }
    placeholder = tf.placeholder(tf.float32, [None, 3])
    p_in = tf.keras.layers.Input(tensor=placeholder)
    on_placeholder = tf.keras.Model(p_in, tf.keras.layers.Dense(1, name="d2")(p_in))
    on_placeholder.compile("sgd", "mse")
    result["arrays_for_a_given_placeholder"] = error(
        lambda: on_placeholder.fit(x, y, epochs=1, batch_size=8, verbose=0)
    )
    return result


CASES["data_tensors_as_x_and_y"] = data_tensors_as_x_and_y


def data_tensors_with_validation(tf):
    """fit on data tensors validating on tensors or arrays (validation_steps of them, each
    step on the whole data): the printed line counts the validation samples; without
    validation_steps the first epoch trains, then the validation fails; validation_split is
    refused. After a validation the callbacks' params say verbose 0 (TF's validation loop
    sets its own), with arrays and generators too."""
    model, x, y, tx, ty = _dense_model_and_data(tf)
    vx, vy = tf.constant(x[:4]), tf.constant(y[:4])
    runs = {
        "tensors": dict(validation_data=(vx, vy), validation_steps=2),
        "tensors_no_steps": dict(validation_data=(vx, vy)),
        "arrays": dict(validation_data=(x[:4], y[:4]), validation_steps=1),
        "split": dict(validation_split=0.25),
        "every_second_epoch": dict(validation_data=(vx, vy), validation_steps=1, validation_freq=2),
    }
    result = {}
    for name, kwargs in runs.items():
        outcome = {}

        def fit(kwargs=kwargs, outcome=outcome):
            try:
                history = model.fit(tx, ty, steps_per_epoch=2, epochs=2, verbose=2, **kwargs)
                outcome["history"] = _history(history)
                outcome["params"] = dict(history.params)
            except Exception as e:  # the class and message are compared
                outcome["error"] = [type(e).__name__, str(e)]

        _, printed, warned = _run(fit)
        outcome["printed"] = printed
        outcome["warned"] = warned
        result[name] = outcome
    params = []
    xs, ys = x[:8], y[:8]
    history = model.fit(xs, ys, epochs=1, batch_size=4, validation_split=0.5, verbose=2)
    params.append(dict(history.params))

    def gen():
        while True:
            yield xs[:4], ys[:4]

    history = model.fit_generator(
        gen(), steps_per_epoch=1, validation_data=gen(), validation_steps=1, verbose=1
    )
    params.append(dict(history.params))
    result["params_after_validation"] = params
    return result


CASES["data_tensors_with_validation"] = data_tensors_with_validation


def self_fed_model_with_validation(tf):
    """fit(x=None) of a model fed by its own tensors, with validation: TF 1.15 validates on
    the model's own tensors whichever tensors validation_data names (validation_steps of
    them), refuses arrays before training, asks for steps after the first epoch, fails
    indexing for validation_split and takes weights as a multi-output model's."""
    _fresh(tf)
    rng = np.random.RandomState(2)
    xs = tf.constant(rng.rand(8, 3).astype(np.float32))
    ys = tf.constant(rng.rand(8, 1).astype(np.float32))
    inp = tf.keras.Input(tensor=xs)
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="d")(inp)
    model = tf.keras.Model(inp, out)
    model.compile("sgd", "mse", metrics=["mae"], target_tensors=[ys])
    ones = np.ones((4, 3), np.float32)
    attempts = [
        ("own_tensors", dict(validation_data=(xs, ys), validation_steps=2)),
        ("other_tensors", dict(validation_data=(xs * 0.0, ys + 5.0), validation_steps=1)),
        ("arrays", dict(validation_data=(ones, ones[:, :1]), validation_steps=1)),
        ("no_steps", dict(validation_data=(xs, ys))),
        ("split", dict(validation_split=0.5)),
        ("weights", dict(validation_data=(xs, ys, np.ones(8, np.float32)), validation_steps=1)),
    ]
    result = {}
    for name, kwargs in attempts:
        outcome = {}

        def fit(kwargs=kwargs, outcome=outcome):
            try:
                history = model.fit(steps_per_epoch=2, epochs=2, verbose=2, **kwargs)
                outcome["history"] = _history(history)
            except Exception as e:  # the class is compared, and the message's first line
                outcome["error"] = [type(e).__name__, str(e).splitlines()[0]]

        _, outcome["printed"], _ = _run(fit)
        outcome["evaluated"] = _floats(model.evaluate(steps=1, verbose=0))
        result[name] = outcome
    return result


CASES["self_fed_model_with_validation"] = self_fed_model_with_validation
