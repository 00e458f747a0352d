"""`tf.*` names of the array extras: broadcasting, repeat/meshgrid, unravel_index, identity_n,
parallel_stack, batch_gather, ensure_shape, bitcast, fingerprint, timestamp, sparse_matmul and
the static helpers."""

from tfcluster.ops import array_extras as _array_extras
from tfcluster.ops import broadcast_ops as _broadcast_ops
from tfcluster.ops import misc_ops as _misc_ops
from tfcluster.ops.array_extras import *  # noqa: F403
from tfcluster.ops.broadcast_ops import *  # noqa: F403
from tfcluster.ops.misc_ops import *  # noqa: F403

__all__ = sorted([*_array_extras.__all__, *_broadcast_ops.__all__, *_misc_ops.__all__])
