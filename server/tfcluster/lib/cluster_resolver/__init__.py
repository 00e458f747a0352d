"""tf.distribute.cluster_resolver: which cluster a program belongs to and which task it is."""

from tfcluster.lib.cluster_resolver.base import (
    ClusterResolver,
    SimpleClusterResolver,
    UnionResolver,
    format_master_url,
)
from tfcluster.lib.cluster_resolver.cloud import GCEClusterResolver, TPUClusterResolver
from tfcluster.lib.cluster_resolver.kubernetes import KubernetesClusterResolver
from tfcluster.lib.cluster_resolver.slurm import SlurmClusterResolver, expand_hostlist
from tfcluster.lib.cluster_resolver.tfconfig import TFConfigClusterResolver

__all__ = [
    "ClusterResolver",
    "GCEClusterResolver",
    "KubernetesClusterResolver",
    "SimpleClusterResolver",
    "SlurmClusterResolver",
    "TFConfigClusterResolver",
    "TPUClusterResolver",
    "UnionResolver",
    "expand_hostlist",
    "format_master_url",
]
