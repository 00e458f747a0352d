"""`from tensorflow.examples.tutorials.mnist import input_data`: the MNIST tutorial reader."""

from tfcluster.lib.datasets.mnist_files import (
    DataSet,
    Datasets,
    dense_to_one_hot,
    extract_images,
    extract_labels,
    maybe_download,
    read_data_sets,
)

__all__ = [
    "DataSet",
    "Datasets",
    "dense_to_one_hot",
    "extract_images",
    "extract_labels",
    "maybe_download",
    "read_data_sets",
]
