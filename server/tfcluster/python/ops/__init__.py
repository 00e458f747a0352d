"""tensorflow.python.ops."""
