"""tf.metrics: streaming metrics built from ops, their state in local variables."""
