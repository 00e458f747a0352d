"""tensorflow.python.framework."""
