"""tensorflow.python.ops.init_ops: tfcluster.ops.init_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.init_ops")
