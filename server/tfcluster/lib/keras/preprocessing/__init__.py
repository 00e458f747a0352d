"""Keras preprocessing (keras_preprocessing 1.1, what TF 1.15 ships as tf.keras.preprocessing)."""
