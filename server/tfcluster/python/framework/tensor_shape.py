"""tensorflow.python.framework.tensor_shape: tfcluster.framework.tensor_shape."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.framework.tensor_shape")
