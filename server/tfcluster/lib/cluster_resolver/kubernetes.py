"""KubernetesClusterResolver: each job's tasks are the Running pods its label selectors match.

Needs the `kubernetes` client (the operator's dependency) unless a client is passed in
(override_client: anything with TF's call, list_pod_for_all_namespaces(label_selector=)).
"""

from __future__ import annotations

from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.cluster_resolver.base import ClusterResolver, format_master_url

try:
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
except ImportError:  # the resolver still works with an override_client
    k8s_client = None  # type: ignore[assignment]
    k8s_config = None  # type: ignore[assignment]


def _load_config() -> None:
    """Inside a pod the service account's credentials, elsewhere ~/.kube/config."""
    assert k8s_config is not None
    try:
        k8s_config.load_incluster_config()
    except k8s_config.ConfigException:
        k8s_config.load_kube_config()


class KubernetesClusterResolver(ClusterResolver):
    """ClusterResolver for Kubernetes: job_to_label_mapping maps each job to label selectors
    ({'worker': ['job-name=worker-a']}); a task's address is its pod's host IP and
    tf_server_port."""

    def __init__(
        self,
        job_to_label_mapping: dict[str, list[str]] | None = None,
        tf_server_port: int = 8470,
        rpc_layer: str = "grpc",
        override_client: Any = None,
    ) -> None:
        if not override_client:
            if k8s_client is None:
                raise ImportError(
                    "The Kubernetes Python client must be installed before using the "
                    "Kubernetes Cluster Resolver. To install the Kubernetes Python client, "
                    "run `pip install kubernetes` on your command line."
                )
            _load_config()
        self._job_to_label_mapping = job_to_label_mapping or {"worker": ["job-name=tensorflow"]}
        self._tf_server_port = tf_server_port
        self._override_client = override_client
        self.task_type: str | None = None
        self.task_id: int | None = None
        self.rpc_layer = rpc_layer

    def master(
        self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None
    ) -> str:
        """The given (or set) task's address; '' when no task is known."""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is not None and task_id is not None:
            address = self.cluster_spec().task_address(task_type, task_id)
            return format_master_url(address, rpc_layer or self.rpc_layer)
        return ""

    def cluster_spec(self) -> ClusterSpec:
        """Asks the API server again on every call; pods of a selector in name order. A pod
        that is not Running raises RuntimeError."""
        if self._override_client:
            api = self._override_client
        else:
            _load_config()
            api = k8s_client.CoreV1Api()  # type: ignore[union-attr]
        cluster: dict[str, list[str]] = {}
        for job, selectors in self._job_to_label_mapping.items():
            addresses: list[str] = []
            for selector in selectors:
                pods = api.list_pod_for_all_namespaces(label_selector=selector).items
                for pod in sorted(pods, key=lambda p: p.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError(
                            f'Pod "{pod.metadata.name}" is not running; phase: "{pod.status.phase}"'
                        )
                    addresses.append(f"{pod.status.host_ip}:{self._tf_server_port}")
            cluster[job] = addresses
        return ClusterSpec(cluster)
