"""tensorflow.python.keras.optimizer_v2: the package of TF 1.15's Keras optimizers, as
programs import its base module (`from tensorflow.python.keras.optimizer_v2 import
optimizer_v2`)."""
