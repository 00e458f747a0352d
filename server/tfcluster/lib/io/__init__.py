"""Files: tf.gfile / tf.io.gfile on the local file system, and the file formats TensorFlow
reads and writes."""
