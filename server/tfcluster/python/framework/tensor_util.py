"""tensorflow.python.framework.tensor_util: tfcluster.framework.tensor_util."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.framework.tensor_util")
