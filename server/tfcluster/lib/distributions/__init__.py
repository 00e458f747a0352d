"""tf.distributions (TF 1.15's deprecated distributions library), built from ops."""
