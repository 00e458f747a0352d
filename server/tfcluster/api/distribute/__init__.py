"""tf.distribute"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.api.distribute import cluster_resolver, experimental
from tfcluster.lib.distribute.cross_device_ops import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
)
from tfcluster.lib.distribute.input_lib import InputContext, InputReplicationMode
from tfcluster.lib.distribute.reduce_util import ReduceOp
from tfcluster.lib.distribute.strategies import MirroredStrategy, OneDeviceStrategy
from tfcluster.lib.distribute.strategy import (
    ReplicaContext,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_loss_reduction,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tfcluster.task_server.server import Server

__getattr__ = _unimplemented.module_getattr("distribute")
