"""A program's scaffolding, as TF 1.15's tensorflow/python/platform gives it: flags and
tf.app.run (absl's, as TF's are), tf.logging, tf.resource_loader."""
