"""tf.nn"""

from tfcluster.api import _unimplemented
from tfcluster.ops.embedding_ops import embedding_lookup  # noqa: F401
from tfcluster.ops.math_ops import sigmoid, tanh  # noqa: F401 - tf.nn.sigmoid is tf.sigmoid
from tfcluster.ops.nn_impl import *  # noqa: F403
from tfcluster.ops.nn_ops import *  # noqa: F403
from tfcluster.ops.sort_ops import in_top_k, top_k  # noqa: F401 - TF 1.15's InTopKV2 form

__getattr__ = _unimplemented.module_getattr("nn")
