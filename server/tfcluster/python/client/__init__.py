"""tensorflow.python.client."""
