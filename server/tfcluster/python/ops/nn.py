"""tensorflow.python.ops.nn (`from tensorflow.python.ops.nn import relu, dynamic_rnn`): the
module behind tf.nn, whose functions are tf.nn's own (its deprecated ones warn as tf.nn's do)."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.nn")
