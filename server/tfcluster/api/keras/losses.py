"""tf.keras.losses"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.losses import (
    KLD, MAE, MAPE, MSE, MSLE, BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge,
    CosineSimilarity, Hinge, Huber, KLDivergence, LogCosh, Loss, MeanAbsoluteError,
    MeanAbsolutePercentageError, MeanSquaredError, MeanSquaredLogarithmicError, Poisson,
    SparseCategoricalCrossentropy, SquaredHinge, binary_crossentropy, categorical_crossentropy,
    categorical_hinge, cosine, cosine_proximity, cosine_similarity, deserialize, get, hinge, kld,
    kullback_leibler_divergence, logcosh, mae, mape, mean_absolute_error,
    mean_absolute_percentage_error, mean_squared_error, mean_squared_logarithmic_error, mse, msle,
    poisson, serialize, sparse_categorical_crossentropy, squared_hinge,
)  # fmt: skip

__getattr__ = _unimplemented.module_getattr("keras.losses")
