"""tensorflow.python.saved_model.main_op: tfcluster.lib.saved_model.main_op's names, its functions
tf.saved_model.main_op's own (their deprecation announced as TF 1.15 does, once for both paths)."""

from tfcluster.python._alias import fill_with_face_functions

fill_with_face_functions(__name__, "tfcluster.lib.saved_model.main_op", "saved_model.main_op")
