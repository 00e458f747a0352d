"""tensorflow.python.saved_model.builder: tfcluster.lib.saved_model.builder."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.lib.saved_model.builder")
