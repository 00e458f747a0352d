"""`tensorflow.examples.tutorials.mnist`: the MNIST reader and the tutorial's model."""

# TF 1.15's package imports both, so `from tensorflow.examples.tutorials import mnist` then
# `mnist.input_data.read_data_sets(...)` works (ericjang/draw reads MNIST that way).
from tfcluster.examples.tutorials.mnist import input_data, mnist

__all__ = ["input_data", "mnist"]
