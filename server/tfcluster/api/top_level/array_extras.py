"""`tf.*` names of the array extras: broadcasting, repeat/meshgrid, unravel_index, identity_n,
parallel_stack, batch_gather, ensure_shape, bitcast, fingerprint, timestamp, sparse_matmul and
the static helpers."""

from tfcluster.ops import array_extras as _array_extras
from tfcluster.ops import batch_scatter_ops as _batch_scatter_ops
from tfcluster.ops import broadcast_ops as _broadcast_ops
from tfcluster.ops import edit_distance_ops as _edit_distance_ops
from tfcluster.ops import misc_ops as _misc_ops
from tfcluster.ops import volume_patches_ops as _volume_patches_ops
from tfcluster.ops.array_extras import *  # noqa: F403
from tfcluster.ops.batch_scatter_ops import *  # noqa: F403
from tfcluster.ops.broadcast_ops import *  # noqa: F403
from tfcluster.ops.edit_distance_ops import *  # noqa: F403
from tfcluster.ops.misc_ops import *  # noqa: F403
from tfcluster.ops.volume_patches_ops import *  # noqa: F403

__all__ = sorted(
    [
        *_array_extras.__all__,
        *_batch_scatter_ops.__all__,
        *_broadcast_ops.__all__,
        *_edit_distance_ops.__all__,
        *_misc_ops.__all__,
        *_volume_patches_ops.__all__,
    ]
)
