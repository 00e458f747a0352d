"""tensorflow.python.platform.tf_logging: tfcluster.lib.platform.tf_logging's names (get_logger
too, which tf.logging does not export), its functions tf.logging's own."""

from tfcluster.python._alias import fill_with_face_functions

fill_with_face_functions(__name__, "tfcluster.lib.platform.tf_logging", "logging")
