"""tensorflow.python.lib."""
