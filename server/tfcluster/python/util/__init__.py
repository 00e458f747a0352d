"""tensorflow.python.util."""
