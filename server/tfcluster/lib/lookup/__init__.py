"""Lookup tables built from the table ops (tf.lookup.experimental)."""
