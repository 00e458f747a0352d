"""tf.keras.datasets: the datasets Keras downloads into ~/.keras/datasets."""
