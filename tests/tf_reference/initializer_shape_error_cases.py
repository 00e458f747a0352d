"""Initializers called with a shape that has an unknown dimension, for TF 1.15 (recorded by
record_initializer_shape_errors.py) and tfcluster
(tests/unit/test_initializer_shape_errors.py): the class of the error each raises. Python 3.7
code."""

INITIALIZERS = {
    "zeros": lambda tf: tf.zeros_initializer(),
    "ones": lambda tf: tf.ones_initializer(),
    "constant": lambda tf: tf.constant_initializer(1.0),
    "random_normal": lambda tf: tf.random_normal_initializer(),
    "random_uniform": lambda tf: tf.random_uniform_initializer(),
    "truncated_normal": lambda tf: tf.truncated_normal_initializer(),
    "glorot_uniform": lambda tf: tf.glorot_uniform_initializer(),
    "glorot_normal": lambda tf: tf.glorot_normal_initializer(),
    "variance_scaling": lambda tf: tf.variance_scaling_initializer(),
    "orthogonal": lambda tf: tf.orthogonal_initializer(),
    "he_normal": lambda tf: tf.initializers.he_normal(),
    "lecun_uniform": lambda tf: tf.initializers.lecun_uniform(),
}


def run_cases(tf):
    """{initializer: class of the error for shape [None, 3]}."""
    out = {}
    for name, make in sorted(INITIALIZERS.items()):
        with tf.Graph().as_default():
            try:
                make(tf)([None, 3])
                out[name] = "no error"
            except Exception as e:
                out[name] = type(e).__name__
    return out
