"""None given where an op wants a tensor (a gradient that does not exist, used as a value),
written once against the TF1 API and run twice: by record_none_inputs.py with TensorFlow 1.15
(`tf` is tensorflow.compat.v1) and by tests/unit/test_none_inputs.py with tfcluster. TF's
op_def_library refuses it with a ValueError naming the input; tf.abs and convert_to_tensor
with convert_to_tensor's own. Kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES, own_graph=True)


def _raised(fn):
    try:
        fn()
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    return None


@case
def none_into_generated_ops(tf):
    K = tf.keras.backend
    return {
        "add": _raised(lambda: tf.add(None, 1.0)),
        "add_second": _raised(lambda: tf.add(1.0, None)),
        "maximum": _raised(lambda: K.maximum(None, 1e-7)),
        "square": _raised(lambda: tf.square(None)),
        "exp": _raised(lambda: K.exp(None)),
        "multiply": _raised(lambda: tf.multiply(None, 2.0)),
    }


@case
def none_into_ops_that_convert_first(tf):
    K = tf.keras.backend
    return {
        "abs": _raised(lambda: tf.abs(None)),
        "keras_abs": _raised(lambda: K.abs(None)),
        "convert_to_tensor": _raised(lambda: tf.convert_to_tensor(None)),
    }


@case
def a_missing_gradient_normalised(tf):
    """A loss that does not depend on the input: its gradient is None, and dividing it by
    its mean magnitude fails where the magnitude is taken."""
    K = tf.keras.backend
    x = tf.placeholder(tf.float32, [None, 3])
    loss = K.variable(0.0)
    grads = K.gradients(loss, x)[0]
    return {
        "gradient": repr(grads),
        "normalised": _raised(lambda: grads / K.maximum(K.mean(K.abs(grads)), 1e-7)),
    }
