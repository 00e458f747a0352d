"""tensorflow.python.ops.check_ops: tfcluster.ops.check_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.check_ops")
