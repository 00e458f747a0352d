"""Errors raised while a Keras backend function (K.function) runs its step, written once
against the TF1 API and run twice: by record_keras_function_errors.py with TensorFlow 1.15
(`tf` is tensorflow.compat.v1) and by tests/unit/test_keras_function_errors.py with
tfcluster. TF 1.15's K.function runs through a session callable, whose errors are not
interpolated as Session.run's are: the message keeps the runtime's `{{node X}}` tag, and
the error has no op. Kept runnable on Python 3.7 and free of anything but numpy."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES, own_graph=True)


def _described(tf, fn):
    try:
        fn()
    except tf.errors.OpError as e:
        return {
            "error": type(e).__name__,
            "message": e.message,
            "str": str(e),
            "has_op": e.op is not None,
            "has_node_def": e.node_def is not None,
        }
    return None


@case
def a_kernel_error_in_a_keras_function(tf):
    K = tf.keras.backend
    x = tf.keras.layers.Input((None, 3), name="x")
    y = tf.keras.layers.Conv1D(2, 5, name="c1")(x)
    f = K.function([x], [y])
    return {"raised": _described(tf, lambda: f([np.ones((1, 2, 3), "float32")]))}


@case
def the_same_error_through_session_run(tf):
    K = tf.keras.backend
    x = tf.keras.layers.Input((None, 3), name="x")
    y = tf.keras.layers.Conv1D(2, 5, name="c1")(x)
    sess = K.get_session()
    got = _described(tf, lambda: sess.run(y, {x: np.ones((1, 2, 3), "float32")}))
    # Session.run names the line that made the op: only its shape is compared.
    got["message"] = got["message"].split(" (defined at ")[0]
    got["str"] = got["str"].split("\n")[0]
    return {"raised": got}


def _inf_checking_model(tf):
    """A model whose second layer refuses an infinite value while the step runs."""
    keras = tf.keras
    model = keras.Sequential(
        [
            keras.layers.Dense(2, input_shape=(3,), name="d"),
            keras.layers.Lambda(lambda t: tf.debugging.check_numerics(t, "bad"), name="check"),
        ]
    )
    model.compile("sgd", "mse")
    return model


@case
def a_kernel_error_in_the_model_loops(tf):
    """fit, evaluate, predict and the *_on_batch methods run their steps through session
    callables in TF 1.15, as K.function does: their errors come uninterpolated too."""
    model = _inf_checking_model(tf)
    x = np.array([[np.inf, 1.0, 2.0]], "float32")
    y = np.zeros((1, 2), "float32")
    return {
        "fit": _described(tf, lambda: model.fit(x, y, verbose=0)),
        "evaluate": _described(tf, lambda: model.evaluate(x, y, verbose=0)),
        "predict": _described(tf, lambda: model.predict(x)),
        "train_on_batch": _described(tf, lambda: model.train_on_batch(x, y)),
        "test_on_batch": _described(tf, lambda: model.test_on_batch(x, y)),
        "predict_on_batch": _described(tf, lambda: model.predict_on_batch(x)),
    }
