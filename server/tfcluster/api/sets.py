"""tf.sets"""

from tfcluster.api import _unimplemented
from tfcluster.ops.sets_ops import set_difference, set_intersection, set_size, set_union

difference = set_difference
intersection = set_intersection
size = set_size
union = set_union

__getattr__ = _unimplemented.module_getattr("sets")
