"""Datasets TF1 programs load through TensorFlow's own package (the MNIST tutorial reader)."""
