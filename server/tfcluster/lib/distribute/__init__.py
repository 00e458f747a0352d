"""tf.distribute's strategies, built from the graph (see strategy.py)."""
