"""tf.layers: TF 1.15's layers library (base Layer, core, convolutional, pooling and
normalisation layers), built from ops; api/layers is its public face."""
