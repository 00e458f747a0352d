"""tensorflow.python.platform.tf_logging: tfcluster.api.logging."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.logging")
