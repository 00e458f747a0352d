"""tensorflow.python.ops.embedding_ops: tfcluster.ops.embedding_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.embedding_ops")
