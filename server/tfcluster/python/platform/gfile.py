"""tensorflow.python.platform.gfile: tfcluster.api.gfile."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.gfile")
