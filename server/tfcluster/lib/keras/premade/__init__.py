"""Keras's premade models (tf.keras.experimental.LinearModel, WideDeepModel)."""
