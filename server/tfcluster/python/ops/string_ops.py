"""tensorflow.python.ops.string_ops: tfcluster.ops.string_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.string_ops")
