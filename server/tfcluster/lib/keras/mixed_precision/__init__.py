"""tf.keras.mixed_precision.experimental (TF 1.15): dtype policies, variables that read as
the layer's compute dtype, and the loss-scaling optimizer wrapper."""
