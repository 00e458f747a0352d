"""tf.feature_column"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.feature_column.categorical_columns import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    weighted_categorical_column,
)
from tfcluster.lib.feature_column.dense_columns import (
    bucketized_column,
    embedding_column,
    indicator_column,
    numeric_column,
)
from tfcluster.lib.feature_column.layers import input_layer, linear_model, make_parse_example_spec
from tfcluster.lib.feature_column.sequence_columns import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from tfcluster.lib.feature_column.shared_embedding import shared_embedding_columns

__getattr__ = _unimplemented.module_getattr("feature_column")
