"""tensorflow.python.saved_model.loader: tfcluster.lib.saved_model.loader's names, its functions
tf.saved_model.loader's own (their deprecation announced as TF 1.15 does, once for both paths)."""

from tfcluster.python._alias import fill_with_face_functions

fill_with_face_functions(__name__, "tfcluster.lib.saved_model.loader", "saved_model.loader")
