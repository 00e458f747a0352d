"""Parts of tf.keras that TF1 graph programs use on their own (regularizers)."""
