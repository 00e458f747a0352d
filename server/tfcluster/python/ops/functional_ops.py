"""tensorflow.python.ops.functional_ops: tfcluster.ops.functional_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.functional_ops")
