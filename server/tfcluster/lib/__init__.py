"""Libraries built from ops, with no kernels of their own (layers, losses, metrics, RNNs,
datasets, estimators, file formats, ...): one package or module per area. Their public
names reach `tf.*` only through the faces in tfcluster.api."""
