"""tensorflow.python.layers: the modules of tf.layers programs import by path."""
