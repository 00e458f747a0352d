"""Modules of TensorFlow's private tree that TF1 programs import by path
(`from tensorflow.python.ops.nn import relu, sigmoid, dynamic_rnn`, in course notebooks of
TF 1.x): what they hold is tf.nn's own functions. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_private_modules.py and on tfcluster by
tests/unit/test_private_modules.py (`tensorflow.python...` there is `tfcluster.python...`).
Python 3.7 code."""

from __future__ import annotations

import importlib

# Names tf.nn and tensorflow.python.ops.nn share in TF 1.15 (its softmax_cross_entropy_
# with_logits_v2, max_pool_with_argmax and dilation2d are v2 forms there, other objects).
_NN_NAMES = [
    "avg_pool",
    "bias_add",
    "bidirectional_dynamic_rnn",
    "conv2d",
    "conv2d_transpose",
    "dropout",
    "dynamic_rnn",
    "elu",
    "embedding_lookup",
    "l2_loss",
    "l2_normalize",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "moments",
    "nce_loss",
    "raw_rnn",
    "relu",
    "relu6",
    "sampled_softmax_loss",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "static_rnn",
    "tanh",
    "top_k",
    "xw_plus_b",
]


def _private(tf, path):
    root = "tensorflow" if tf.__name__.startswith("tensorflow") else "tfcluster"
    return importlib.import_module(root + "." + path)


def nn_module_functions_are_tf_nns(tf):
    """Each name of tensorflow.python.ops.nn is the very object tf.nn has."""
    nn = _private(tf, "python.ops.nn")
    return {name: getattr(nn, name) is getattr(tf.nn, name) for name in _NN_NAMES}


def nn_module_functions_run(tf):
    """relu, sigmoid, tanh and softmax taken from the module compute as tf.nn's."""
    nn = _private(tf, "python.ops.nn")
    with tf.Graph().as_default():
        x = tf.constant([[-1.0, 0.5, 2.0]])
        outs = {name: getattr(nn, name)(x) for name in ("relu", "sigmoid", "tanh", "softmax")}
        with tf.Session() as sess:
            got = sess.run(outs)
        return {name: value.tolist() for name, value in got.items()}


CASES = {
    "nn_module_functions_are_tf_nns": nn_module_functions_are_tf_nns,
    "nn_module_functions_run": nn_module_functions_run,
}
