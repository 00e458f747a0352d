"""`tensorflow.examples.tutorials.mnist`: the MNIST reader and the tutorial's model."""
