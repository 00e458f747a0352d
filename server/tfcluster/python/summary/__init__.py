"""tensorflow.python.summary: the modules of tf.summary programs import by path."""
