"""tensorflow.python.ops.nn (`from tensorflow.python.ops.nn import relu, dynamic_rnn`): the
module behind tf.nn, whose functions are tf.nn's own (its deprecated ones warn as tf.nn's do)."""

import importlib

from tfcluster.python._alias import alias

# tf.nn read once through the top level: that read gives the face its deprecation wrappers.
_TF_NN = importlib.import_module("tfcluster").nn
alias(__name__, "tfcluster.api.nn")
