"""tensorflow.python.ops.array_ops: tfcluster.ops.array_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.array_ops")
