"""Raw TensorFlow ops in TF 1.15's functional Keras API: an op on Keras tensors becomes a
TensorFlowOpLayer (`tf_op_layer_<op>`) when a layer is called on its result or a Model takes
it as an output; a functional model's add_loss of an expression of its tensors adds those op
layers and an AddLoss layer (model.layers, the ops add_loss makes: K.function's group_deps
and the session's variable initialization, the AddLoss's Identity), the loss fit trains on,
compile(loss=None)'s warning, the layers' configs, a model called again, rebuilt from its
config and loaded from HDF5 (compile=False: no optimizer), and a passed-through input's
copy named inside the layer's scope. Each case is `fn(tf) -> dict of plain values`, run on TF
1.15 by record_keras_tf_op_layers.py and on tfcluster by tests/unit/test_keras_tf_op_layers.py.
Python 3.7 code."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile

import numpy as np

try:
    from tf_reference.case_tools import LoggedWarnings
except ImportError:  # run as a script under TF 1.15
    from case_tools import LoggedWarnings

CASES = {}


def _fresh(tf):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    np.random.seed(0)


def _data():
    x = np.linspace(0, 1, 24, dtype=np.float32).reshape(8, 3)
    y = np.linspace(1, 0, 8, dtype=np.float32).reshape(8, 1)
    return x, y


def _base(tf):
    inp = tf.keras.layers.Input(shape=(3,))
    h = tf.keras.layers.Dense(2, kernel_initializer="ones", name="h")(inp)
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="o")(h)
    return inp, h, out


def _plain(value):
    """Tuples as lists and numpy values as lists or numbers (as JSON keeps them)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def _config_view(config):
    """A model config without the NodeDefs' attr order (TF's varies from run to run) and
    with constants as lists."""
    layers = []
    for layer in config["layers"]:
        inner = dict(layer["config"])
        if "node_def" in inner:
            node_def = dict(inner["node_def"])
            node_def["attr"] = sorted(node_def.get("attr", {}).items())
            inner["node_def"] = node_def
            inner["constants"] = sorted(
                [int(k), np.asarray(v).tolist()] for k, v in inner["constants"].items()
            )
        layers.append([layer["name"], layer["class_name"], inner, layer["inbound_nodes"]])
    return _plain(layers)


def _history(history):
    return {k: [float(v) for v in vs] for k, vs in history.history.items()}


def add_loss_of_model_tensors(tf):
    """Two add_loss calls on expressions of a model's tensors, then fit and evaluate."""
    _fresh(tf)
    x, y = _data()
    inp, h, out = _base(tf)
    model = tf.keras.Model(inp, out)
    graph = tf.get_default_graph()
    before = len(graph.get_operations())
    model.add_loss(0.01 * tf.reduce_mean(tf.square(h)))
    made = [op.name for op in graph.get_operations()[before:]]
    model.add_loss(tf.reduce_sum(out) * 0.001)
    model.compile("sgd", "mse")
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    return {
        "layers": [layer.name for layer in model.layers],
        "classes": [type(layer).__name__ for layer in model.layers],
        "ops_made_by_add_loss": made,
        "losses": [t.name for t in model.losses],
        "metrics_names": list(model.metrics_names),
        "history": _history(history),
        "evaluate": float(model.evaluate(x, y, verbose=0)),
        "config": _config_view(model.get_config()),
        "add_loss_nodes": [
            [len(layer.inbound_nodes), len(layer.outbound_nodes)] for layer in model.layers
        ],
    }


CASES["add_loss_of_model_tensors"] = add_loss_of_model_tensors


def add_loss_only(tf):
    """A model compiled with no loss but an added one: TF warns that the output has no loss
    and fit takes no targets."""
    _fresh(tf)
    x, _ = _data()
    inp, _, out = _base(tf)
    model = tf.keras.Model(inp, out)
    model.add_loss(tf.reduce_mean(out))
    warnings = LoggedWarnings()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(warnings)
    try:
        model.compile("sgd", None)
    finally:
        logger.removeHandler(warnings)
    history = model.fit(x, epochs=1, batch_size=8, verbose=0)
    return {
        "layers": [layer.name for layer in model.layers],
        "warned": warnings.messages,
        "loss": model.loss,
        "metrics_names": list(model.metrics_names),
        "history": _history(history),
    }


CASES["add_loss_only"] = add_loss_only


def raw_ops_between_layers(tf):
    """tf.square(h) + 1 fed to a Dense layer and tf.reduce_sum(h, 1) as a second output."""
    _fresh(tf)
    x, _ = _data()
    inp, h, _ = _base(tf)
    s = tf.square(h) + 1.0
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="o2")(s)
    model = tf.keras.Model(inp, [out, tf.reduce_sum(h, axis=1)])
    model.compile("sgd", "mse")
    predicted = model.predict(x)
    again = model(tf.keras.layers.Input(shape=(3,)))
    return {
        "layers": [layer.name for layer in model.layers],
        "output_names": list(model.output_names),
        "predict": [np.asarray(p) for p in predicted],
        "called_again": [t.name for t in again],
        "config": _config_view(model.get_config()),
    }


CASES["raw_ops_between_layers"] = raw_ops_between_layers


def add_loss_saved_and_loaded(tf):
    """The added loss survives get_config / from_config and an HDF5 file; load_model with
    compile=False has no optimizer, with compile the saved one."""
    _fresh(tf)
    x, y = _data()
    inp, h, out = _base(tf)
    model = tf.keras.Model(inp, out)
    model.add_loss(0.01 * tf.reduce_mean(tf.square(h)) + tf.reduce_sum(out) * 0.001)
    model.compile("sgd", "mse")
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    rebuilt = tf.keras.Model.from_config(model.get_config())
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "m.h5")
        model.save(path)
        bare = tf.keras.models.load_model(path, compile=False)
        compiled = tf.keras.models.load_model(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    bare.compile("sgd", "mse")
    return {
        "rebuilt_layers": [layer.name for layer in rebuilt.layers],
        "rebuilt_losses": len(rebuilt.losses),
        "bare_optimizer": repr(bare.optimizer) if bare.optimizer is None else "set",
        "bare_layers": [layer.name for layer in bare.layers],
        "bare_losses": len(bare.losses),
        "bare_evaluate": float(bare.evaluate(x, y, verbose=0)),
        "evaluate": float(model.evaluate(x, y, verbose=0)),
        "compiled_optimizer": type(compiled.optimizer).__name__,
        "compiled_loss": compiled.loss,
        "compiled_evaluate": float(compiled.evaluate(x, y, verbose=0)),
    }


CASES["add_loss_saved_and_loaded"] = add_loss_saved_and_loaded


def passed_through_input_copy(tf):
    """A layer returning its input gives a copy named inside its scope."""
    _fresh(tf)
    inp = tf.keras.layers.Input(shape=(3,))
    same = tf.keras.layers.Lambda(lambda t: t, name="same")(inp)
    return {"name": same.name}


CASES["passed_through_input_copy"] = passed_through_input_copy


def sequential_add_loss_then_add(tf):
    """A Sequential's add_loss adds its layers; a later add maps the graph again without
    them (and the loss). Ops inside a Lambda make no op layers; an op before a nested model
    does."""
    _fresh(tf)
    x, y = _data()
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(2, input_shape=(3,), kernel_initializer="ones", name="a"),
            tf.keras.layers.Dense(1, kernel_initializer="ones", name="b"),
        ]
    )
    model.add_loss(tf.reduce_mean(model.layers[0].output) * 0.1)
    result = {"layers": [layer.name for layer in model.layers], "losses": len(model.losses)}
    model.compile("sgd", "mse")
    result["history"] = _history(model.fit(x, y, epochs=1, batch_size=8, verbose=0))
    model.add(tf.keras.layers.Dense(1, name="c", kernel_initializer="ones"))
    result["layers_after_add"] = [layer.name for layer in model.layers]
    result["losses_after_add"] = len(model.losses)
    inp = tf.keras.layers.Input(shape=(3,))
    squared = tf.keras.layers.Lambda(lambda t: tf.square(t) + 1, name="sq")(inp)
    lambda_model = tf.keras.Model(inp, tf.keras.layers.Dense(1, name="e")(squared))
    result["lambda_layers"] = [layer.name for layer in lambda_model.layers]
    inner = tf.keras.Model(inp, tf.keras.layers.Dense(2, name="inner_d")(inp))
    inp2 = tf.keras.layers.Input(shape=(3,))
    outer = tf.keras.Model(inp2, inner(inp2 * 2.0))
    result["nested_layers"] = [layer.name for layer in outer.layers]
    return result


CASES["sequential_add_loss_then_add"] = sequential_add_loss_then_add


def add_loss_not_reaching_inputs(tf):
    """add_loss of an expression of a weight only: an op layer (the rest a constant) and an
    AddLoss are added, model.losses holds it, but fit's total loss leaves it out (TF keys
    the loss on the inputs, which do not reach it)."""
    _fresh(tf)
    x, _ = _data()
    y = np.ones((8, 1), np.float32)
    inp = tf.keras.layers.Input(shape=(3,))
    out = tf.keras.layers.Dense(1, kernel_initializer="ones", name="o")(inp)
    model = tf.keras.Model(inp, out)
    model.add_loss(tf.reduce_sum(model.layers[1].kernel) * 0.01)
    model.compile("sgd", "mse")
    return {
        "layers": [layer.name for layer in model.layers],
        "losses": len(model.losses),
        "history": _history(model.fit(x, y, epochs=2, batch_size=4, verbose=0)),
    }


CASES["add_loss_not_reaching_inputs"] = add_loss_not_reaching_inputs
