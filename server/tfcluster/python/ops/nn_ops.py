"""tensorflow.python.ops.nn_ops: tfcluster.ops.nn_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.nn_ops")
