"""`tf.*` names of reading data with tf.data: the variant dtype that datasets are."""

from tfcluster.framework.dtypes import variant

__all__ = ["variant"]
