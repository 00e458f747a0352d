"""tensorflow.python.framework.errors: tfcluster.api.errors."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.errors")
