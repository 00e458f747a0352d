"""tensorflow.python.ops.tensor_array_ops: tfcluster.ops.tensor_array_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.tensor_array_ops")
