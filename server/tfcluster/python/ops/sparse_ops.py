"""tensorflow.python.ops.sparse_ops: tfcluster.ops.sparse_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.sparse_ops")
