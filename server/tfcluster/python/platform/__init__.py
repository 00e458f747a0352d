"""tensorflow.python.platform."""
