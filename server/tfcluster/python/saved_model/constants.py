"""tensorflow.python.saved_model.constants: tfcluster.lib.saved_model.constants."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.lib.saved_model.constants")
