"""tf.queue"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.data_flow_ops import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__getattr__ = _unimplemented.module_getattr("queue")
