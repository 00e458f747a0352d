"""tensorflow.python.ops.state_ops: tfcluster.ops.state_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.state_ops")
