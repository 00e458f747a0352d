"""tf.losses: losses built from ops, and the collections they are kept in."""
