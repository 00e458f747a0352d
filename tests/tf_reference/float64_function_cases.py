"""Programs for float64 element-wise functions as TF 1.15's CPU kernels compute them: each
case runs one function of tf.math / tf.nn on float64 values of many magnitudes (a tensor of
1003 values: packets of four and a scalar tail of three; and one of three values, all tail),
plus zeros, infinities, NaN, subnormals and values outside the function's domain, with `tf`
(TensorFlow 1.15 when recorded by record_float64_functions.py, tfcluster in
tests/unit/test_float64_functions.py), and returns the results' bytes. Python 3.7 code."""

import numpy as np

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, 1.0, -1.0, 710.0, -746.0]


def _values():
    """Exactly the same values on any numpy: ldexp of RandomState draws."""
    rng = np.random.RandomState(0)
    x = np.ldexp(rng.randn(1003), rng.randint(-3, 3, 1003))
    return x


def _inputs(domain):
    x = _values()
    if domain == "positive":
        x = np.abs(x) + 1e-3
    elif domain == "unit":
        x = x / (np.abs(x) + 1.0)
    elif domain == "above_one":
        x = np.abs(x) + 1.0
    return {"large": x, "small": x[:3], "special": np.array(SPECIAL)}


FUNCTIONS = {
    "exp": ("math", "exp", None),
    "sigmoid": ("math", "sigmoid", None),
    "tanh": ("math", "tanh", None),
    "log": ("math", "log", "positive"),
    "log1p": ("math", "log1p", "positive"),
    "expm1": ("math", "expm1", None),
    "tan": ("math", "tan", None),
    "asin": ("math", "asin", "unit"),
    "acos": ("math", "acos", "unit"),
    "atan": ("math", "atan", None),
    "sinh": ("math", "sinh", None),
    "cosh": ("math", "cosh", None),
    "asinh": ("math", "asinh", None),
    "acosh": ("math", "acosh", "above_one"),
    "atanh": ("math", "atanh", "unit"),
    "erf": ("math", "erf", None),
    "erfc": ("math", "erfc", None),
    "lgamma": ("math", "lgamma", "positive"),
    "elu": ("nn", "elu", None),
    "selu": ("nn", "selu", None),
    "softplus": ("nn", "softplus", None),
    "log_sigmoid": ("math", "log_sigmoid", None),
    "pow": ("math", "pow", "positive"),
}


def _case(module, name, domain):
    def program(tf):
        fn = getattr(getattr(tf, module), name)
        out = {}
        for label, values in sorted(_inputs(domain).items()):
            with tf.Graph().as_default():
                x = tf.constant(values)
                y = fn(x, tf.constant(np.float64(1.7))) if name == "pow" else fn(x)
                with tf.Session() as sess:
                    out[label] = sess.run(y).tobytes().hex()
        return out

    return program


CASES = {key: _case(*spec) for key, spec in FUNCTIONS.items()}
