"""`tf.*` names that losses and metrics build on: tf.confusion_matrix."""

from tfcluster.ops.confusion_matrix import confusion_matrix

__all__ = ["confusion_matrix"]
