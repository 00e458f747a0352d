"""The NetworkPolicy of a TFCluster (``spec.networkPolicy``; pure).

It selects exactly the cluster's task pods (the cluster label and the operator's managed-by
label, which only pods of its StatefulSets carry) and lets in, to the gRPC and direct ports,
only those pods and the pods labelled ``tfcluster.dev/client-of: <name>`` (the cluster's
namespace, or the namespaces ``clientNamespaceSelector`` names); to the metrics port, only
the peers ``metricsFrom`` names (the monitoring stack; none when empty). Out of the pods it
lets the tasks reach each other and DNS (port 53, anywhere), nothing else. Traffic from the
node (the kubelet's probes) is not subject to NetworkPolicies.
"""

from __future__ import annotations

from typing import Any

from ..spec import TFClusterSpec
from .meta import (
    MANAGED_BY,
    MANAGED_BY_LABEL,
    OwnerRef,
    cluster_selector,
    common_labels,
    object_meta,
)

# The label a client pod carries to reach a cluster's tasks: tfcluster.dev/client-of: <name>.
CLIENT_LABEL = "tfcluster.dev/client-of"
DNS_PORT = 53


def policy_name(spec: TFClusterSpec) -> str:
    return f"{spec.name}-tasks"


def task_pods(spec: TFClusterSpec) -> dict[str, str]:
    """The labels that select the cluster's task pods and nothing else."""
    return {**cluster_selector(spec), MANAGED_BY_LABEL: MANAGED_BY}


def enabled(spec: TFClusterSpec, default: bool) -> bool:
    wanted = spec.network_policy.enabled
    return default if wanted is None else wanted


def network_policy(spec: TFClusterSpec, owner: OwnerRef) -> dict[str, Any]:
    wanted = spec.network_policy
    tasks = {"podSelector": {"matchLabels": task_pods(spec)}}
    client: dict[str, Any] = {"podSelector": {"matchLabels": {CLIENT_LABEL: spec.name}}}
    if wanted.client_namespace_selector is not None:
        client["namespaceSelector"] = dict(wanted.client_namespace_selector)
    serving = [
        {"protocol": "TCP", "port": spec.port},
        {"protocol": "TCP", "port": spec.direct_port},
    ]
    ingress: list[dict[str, Any]] = [{"from": [tasks, client], "ports": serving}]
    if wanted.metrics_from:
        ingress.append(
            {
                "from": [dict(peer) for peer in wanted.metrics_from],
                "ports": [{"protocol": "TCP", "port": spec.metrics_port}],
            }
        )
    egress = [
        {"to": [tasks], "ports": serving},
        {"ports": [{"protocol": "UDP", "port": DNS_PORT}, {"protocol": "TCP", "port": DNS_PORT}]},
    ]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": object_meta(spec, policy_name(spec), common_labels(spec, "network"), owner),
        "spec": {
            "podSelector": {"matchLabels": task_pods(spec)},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": ingress,
            "egress": egress,
        },
    }
