"""tensorflow.python.saved_model.signature_def_utils: tfcluster's module of that name
(tfcluster.lib.saved_model.signature_def_utils)."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.lib.saved_model.signature_def_utils")
