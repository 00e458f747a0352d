"""tensorflow.python.ops.variables: tfcluster.ops.variables."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.variables")
