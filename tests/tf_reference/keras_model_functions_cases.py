"""A Keras model's train_function, test_function and predict_function as TF 1.15 has them:
absent before compile, None after it, made by `_make_*_function()` or by the loops, and
callable with TF's inputs (inputs, targets, fed sample weights, then the learning phase for
train_function), returning the loss and metrics (or the outputs). Written once for TF 1.15
(record_keras_model_functions.py) and tfcluster (tests/unit/test_keras_model_functions.py);
kept runnable on Python 3.7."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=11)

_X = np.array([[0.5, -1.0, 2.0], [1.5, 2.0, -0.5], [-0.25, 0.75, 1.0], [1.0, 1.0, 1.0]], np.float32)
_Y = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)


_KERNEL = [[0.5, -0.25], [0.1, 0.2], [-0.3, 0.4]]


def _model(tf):
    return tf.keras.Sequential(
        [
            tf.keras.layers.Dense(
                2,
                activation="relu",
                input_shape=(3,),
                kernel_initializer=tf.keras.initializers.Constant(_KERNEL),
            ),
            tf.keras.layers.Dropout(0.0),
            tf.keras.layers.Dense(1, kernel_initializer="ones"),
        ]
    )


def _state(model, name):
    if not hasattr(model, name):
        return "absent"
    value = getattr(model, name)
    return "none" if value is None else "function"


def _states(model):
    return [_state(model, n) for n in ("train_function", "test_function", "predict_function")]


def _plain(values):
    return [np.asarray(v).tolist() for v in values]


@case
def functions_made_and_called(tf):
    model = _model(tf)
    before = _states(model)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    compiled = _states(model)
    model._make_predict_function()
    predicted = _plain(model.predict_function([_X]))
    model._make_test_function()
    tested = _plain(model.test_function([_X, _Y]))
    model._make_train_function()
    trained = [_plain(model.train_function([_X, _Y, 1])) for _ in range(2)]
    after_train = _plain(model.test_function([_X, _Y]))
    return {
        "before": before,
        "compiled": compiled,
        "made": _states(model),
        "predicted": predicted,
        "tested": tested,
        "trained": trained,
        "after_train": after_train,
        "weights": _plain(model.get_weights()),
    }


@case
def loops_make_the_functions(tf):
    model = _model(tf)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(_X, _Y, epochs=1, verbose=0)
    after_fit = _states(model)
    model.predict(_X)
    after_predict = _states(model)
    return {
        "after_fit": after_fit,
        "after_predict": after_predict,
        "train_inputs": len(model.train_function.inputs),
        "train_outputs": len(model.train_function.outputs),
    }


@case
def sample_weights_join_the_inputs(tf):
    model = _model(tf)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(_X, _Y, sample_weight=np.array([1.0, 0.0, 2.0, 1.0], np.float32), verbose=0)
    w = np.array([0.5, 1.0, 1.0, 0.0], np.float32)
    return {
        "train_inputs": len(model.train_function.inputs),
        "test": _plain(model.test_function([_X, _Y, w])) if model.test_function else None,
        "train": _plain(model.train_function([_X, _Y, w, 1])),
    }


@case
def set_to_none_is_made_again(tf):
    model = _model(tf)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(_X, _Y, verbose=0)
    model.train_function = None
    cleared = _state(model, "train_function")
    model.fit(_X, _Y, verbose=0)
    return {"cleared": cleared, "after_fit": _state(model, "train_function")}
