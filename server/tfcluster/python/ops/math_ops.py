"""tensorflow.python.ops.math_ops: tfcluster.ops.math_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.math_ops")
