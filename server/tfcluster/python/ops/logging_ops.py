"""tensorflow.python.ops.logging_ops: tfcluster.ops.logging_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.logging_ops")
