"""tf.distribute.cluster_resolver"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.cluster_resolver import (
    ClusterResolver,
    GCEClusterResolver,
    KubernetesClusterResolver,
    SimpleClusterResolver,
    SlurmClusterResolver,
    TFConfigClusterResolver,
    TPUClusterResolver,
    UnionResolver,
)

__getattr__ = _unimplemented.module_getattr("distribute.cluster_resolver")
