"""tensorflow.python.ops.clip_ops: tfcluster.ops.clip_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.clip_ops")
