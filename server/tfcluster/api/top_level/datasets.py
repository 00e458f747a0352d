"""`tf.*` names of reading data with tf.data: the variant dtype of datasets, matching_files."""

from tfcluster.framework.dtypes import variant
from tfcluster.ops.dataset_ops import matching_files

__all__ = ["matching_files", "variant"]
