"""tf.keras.applications (TF 1.15, i.e. Keras Applications 1.0.8 over tf.keras): the ImageNet
models with TF's layer names, order and weights, so Keras's HDF5 weight files load into them."""
