"""tensorflow.python.framework.graph_util: tfcluster.framework.graph_util."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.framework.graph_util")
