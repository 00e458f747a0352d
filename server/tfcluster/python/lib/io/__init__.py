"""tensorflow.python.lib.io."""
