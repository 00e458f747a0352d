"""tensorflow.python.saved_model.utils: tfcluster.lib.saved_model.utils's names, its functions
tf.saved_model.utils's own (their deprecation announced as TF 1.15 does, once for both paths)."""

from tfcluster.python._alias import fill_with_face_functions

fill_with_face_functions(__name__, "tfcluster.lib.saved_model.utils", "saved_model.utils")
