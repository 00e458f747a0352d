"""tensorflow.python.framework.sparse_tensor: tfcluster.framework.sparse_tensor."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.framework.sparse_tensor")
