"""tensorflow.python.ops.variable_scope: tfcluster.ops.variable_scope."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.variable_scope")
