"""tensorflow.python.training."""
