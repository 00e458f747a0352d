"""tensorflow.python.saved_model.tag_constants: tfcluster.lib.saved_model.tag_constants."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.lib.saved_model.tag_constants")
