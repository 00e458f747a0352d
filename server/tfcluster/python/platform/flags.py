"""tensorflow.python.platform.flags: tfcluster.api.flags."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.api.flags")
