"""tensorflow.python.util.nest: tfcluster.api.nest."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.nest")
