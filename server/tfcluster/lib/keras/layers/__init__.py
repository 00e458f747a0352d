"""tf.keras.layers, built on the tf.layers classes (lib/layers) with Keras behaviour mixed in."""
