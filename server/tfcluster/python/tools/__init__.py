"""tensorflow.python.tools."""
