"""GCEClusterResolver and TPUClusterResolver: resolvers of Google Cloud services that a
tfcluster process cannot serve. They raise UnimplementedError saying why when made."""

from __future__ import annotations

from typing import Any, NoReturn

from tfcluster.framework import errors
from tfcluster.lib.cluster_resolver.base import ClusterResolver

_GCE = (
    "it lists a Compute Engine instance group through the Google API client (googleapiclient "
    "with Cloud credentials), which tfcluster neither ships nor can reach from a TFCluster "
    "pod; use TFConfigClusterResolver (the operator sets TF_CONFIG) or SimpleClusterResolver"
)
_TPU = (
    "tfcluster runs on CPUs and CUDA GPUs only: it has no TPU runtime or Cloud TPU API client; "
    "use TFConfigClusterResolver or SimpleClusterResolver"
)


def _refuse(name: str, reason: str) -> NoReturn:
    raise errors.UnimplementedError(
        None,
        None,
        f"tf.distribute.cluster_resolver.{name} is not implemented in tfcluster: {reason}",
    )


class GCEClusterResolver(ClusterResolver):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _refuse("GCEClusterResolver", _GCE)

    def cluster_spec(self) -> Any:
        _refuse("GCEClusterResolver", _GCE)

    def master(self, task_type: Any = None, task_id: Any = None, rpc_layer: Any = None) -> str:
        _refuse("GCEClusterResolver", _GCE)


class TPUClusterResolver(ClusterResolver):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _refuse("TPUClusterResolver", _TPU)

    def cluster_spec(self) -> Any:
        _refuse("TPUClusterResolver", _TPU)

    def master(self, task_type: Any = None, task_id: Any = None, rpc_layer: Any = None) -> str:
        _refuse("TPUClusterResolver", _TPU)
