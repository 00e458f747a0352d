"""tensorflow.python.platform.app: tfcluster.api.app."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.app")
