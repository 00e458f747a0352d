"""tensorflow.python.ops.random_ops: tfcluster.ops.random_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.random_ops")
