"""tf.feature_column as TF 1.15 builds it (the v1 columns): how raw features become the
dense and sparse tensors models consume."""
