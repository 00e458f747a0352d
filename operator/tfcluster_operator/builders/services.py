"""The Services of a TFCluster: one headless Service per job and one for clients."""

from __future__ import annotations

from typing import Any

from ..spec import TFClusterSpec
from .meta import (
    JOB_INDEX_LABEL,
    POD_NAME_LABEL,
    OwnerRef,
    common_labels,
    job_selector,
    object_meta,
)


def _grpc_port(spec: TFClusterSpec) -> dict[str, Any]:
    return {"name": "grpc", "port": spec.port, "targetPort": "grpc", "protocol": "TCP"}


def _direct_port(spec: TFClusterSpec) -> dict[str, Any]:
    # Clients dial the port a task reports over gRPC on the host they used for gRPC, so
    # the Service port must be the container's port itself.
    return {"name": "direct", "port": spec.direct_port, "targetPort": "direct", "protocol": "TCP"}


def _ports(spec: TFClusterSpec) -> list[dict[str, Any]]:
    return [
        _grpc_port(spec),
        {
            "name": "metrics",
            "port": spec.metrics_port,
            "targetPort": "metrics",
            "protocol": "TCP",
        },
        _direct_port(spec),
    ]


def job_service(spec: TFClusterSpec, job: str, owner: OwnerRef) -> dict[str, Any]:
    """Headless, publishing not-ready pods: peers resolve each other before they are ready,
    which a starting TF cluster needs (every task waits for all the others)."""
    labels = {**common_labels(spec, job), **job_selector(spec, job)}
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(spec, spec.child_name(job), labels, owner),
        "spec": {
            "clusterIP": "None",
            "publishNotReadyAddresses": True,
            "selector": job_selector(spec, job),
            "ports": _ports(spec),
        },
    }


def client_service(spec: TFClusterSpec, owner: OwnerRef) -> dict[str, Any]:
    """``<name>-client``: a stable ClusterIP in front of the task that serves sessions."""
    client = spec.client
    pod = f"{spec.child_name(client.job)}-{client.index}"
    # A StatefulSet's pod is named for its task; an Indexed Job's pod has the index label.
    task = (
        {JOB_INDEX_LABEL: str(client.index)} if spec.runs_to_completion else {POD_NAME_LABEL: pod}
    )
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(
            spec, spec.client_service_name, common_labels(spec, "client"), owner
        ),
        "spec": {
            "type": "ClusterIP",
            "selector": {**job_selector(spec, client.job), **task},
            "ports": [_grpc_port(spec), _direct_port(spec)],
        },
    }


def endpoint(spec: TFClusterSpec, cluster_domain: str = "") -> str:
    """The session target, for ``tf.Session(endpoint)``."""
    suffix = f".{cluster_domain}" if cluster_domain else ""
    return f"grpc://{spec.client_service_name}.{spec.namespace}.svc{suffix}:{spec.port}"
