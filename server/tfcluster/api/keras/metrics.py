"""tf.keras.metrics"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.metrics import (
    KLD, MAE, MAPE, MSE, MSLE, Accuracy, BinaryAccuracy, BinaryCrossentropy, CategoricalAccuracy,
    CategoricalCrossentropy, Hinge, KLDivergence, LogCoshError, Mean, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredError, MeanSquaredLogarithmicError, Metric, Poisson,
    RootMeanSquaredError, SparseCategoricalAccuracy, SparseCategoricalCrossentropy,
    SparseTopKCategoricalAccuracy, SquaredHinge, Sum, TopKCategoricalAccuracy, binary_accuracy,
    binary_crossentropy, categorical_accuracy, categorical_crossentropy, cosine, cosine_proximity,
    deserialize, get, hinge, kld, kullback_leibler_divergence, mae, mape, mean_absolute_error,
    mean_absolute_percentage_error, mean_squared_error, mean_squared_logarithmic_error, mse, msle,
    poisson, serialize, sparse_categorical_accuracy, sparse_categorical_crossentropy,
    sparse_top_k_categorical_accuracy, squared_hinge, top_k_categorical_accuracy,
)  # fmt: skip

__getattr__ = _unimplemented.module_getattr("keras.metrics")
