"""tf.data: datasets as graph objects (dataset.py), the structure of their elements
(structure.py), traced functions (function.py), iterators (iterator.py), file datasets
(readers.py) and tf.data.experimental's transformations (experimental.py). The kernels that
run them are tfcluster/kernels/dataset*.py."""
