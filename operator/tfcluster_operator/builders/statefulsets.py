"""One StatefulSet per job: stable names (``<name>-<job>-<i>``) for stable task addresses."""

from __future__ import annotations

from typing import Any

from ..spec import JobSpec, TFClusterSpec
from ..task_contract import (
    CPU_BUDGET_ENV,
    DIRECT_PORT_ENV,
    METRICS_PORT_ENV,
    SERVER_COMMAND,
    TERMINATION_MESSAGE_PATH,
)
from .meta import OwnerRef, common_labels, job_selector, object_meta
from .tf_config import tf_config_env

CONTAINER_NAME = "tfcluster-server"
GPU_RESOURCE = "nvidia.com/gpu"


def statefulset(
    spec: TFClusterSpec, job: JobSpec, owner: OwnerRef, cluster_domain: str = ""
) -> dict[str, Any]:
    """The StatefulSet of ``job``: its pods run ``tfcluster-server`` with their TF_CONFIG."""
    # The user's labels first: ours win, selectors and Services depend on them.
    labels = {
        **job.template.labels,
        **common_labels(spec, job.name),
        **job_selector(spec, job.name),
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": object_meta(
            spec,
            spec.child_name(job.name),
            {**common_labels(spec, job.name), **job_selector(spec, job.name)},
            owner,
        ),
        "spec": {
            "replicas": 0 if spec.suspend else job.replicas,
            "serviceName": spec.child_name(job.name),
            # Every task must be up for the cluster to work: start them all at once.
            "podManagementPolicy": "Parallel",
            "selector": {"matchLabels": job_selector(spec, job.name)},
            "updateStrategy": {"type": "RollingUpdate"},
            "revisionHistoryLimit": 5,
            "template": {
                "metadata": {"labels": labels, "annotations": _pod_annotations(spec, job)},
                "spec": _pod_spec(spec, job, cluster_domain),
            },
        },
    }


def _pod_annotations(spec: TFClusterSpec, job: JobSpec) -> dict[str, str]:
    return {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": str(spec.metrics_port),
        "prometheus.io/path": "/metrics",
        **job.template.annotations,
    }


def _pod_spec(spec: TFClusterSpec, job: JobSpec, cluster_domain: str) -> dict[str, Any]:
    overrides = job.template
    pod: dict[str, Any] = {
        "containers": [_container(spec, job, cluster_domain)],
        "enableServiceLinks": False,
        "terminationGracePeriodSeconds": 30,
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
    }
    if overrides.node_selector:
        pod["nodeSelector"] = dict(overrides.node_selector)
    tolerations = [dict(t) for t in overrides.tolerations]
    if job.gpus > 0 and not any(t.get("key") == GPU_RESOURCE for t in tolerations):
        # GPU nodes are commonly tainted nvidia.com/gpu:NoSchedule.
        tolerations.append({"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"})
    if tolerations:
        pod["tolerations"] = tolerations
    if overrides.affinity:
        pod["affinity"] = dict(overrides.affinity)
    if overrides.volumes:
        pod["volumes"] = [dict(v) for v in overrides.volumes]
    if overrides.service_account_name:
        pod["serviceAccountName"] = overrides.service_account_name
    if overrides.priority_class_name:
        pod["priorityClassName"] = overrides.priority_class_name
    if overrides.image_pull_secrets:
        pod["imagePullSecrets"] = [dict(s) for s in overrides.image_pull_secrets]
    return pod


def _container(spec: TFClusterSpec, job: JobSpec, cluster_domain: str) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": CONTAINER_NAME,
        "image": job.image or spec.image,
        "imagePullPolicy": spec.image_pull_policy,
        "command": [SERVER_COMMAND],
        "ports": [
            {"name": "grpc", "containerPort": spec.port, "protocol": "TCP"},
            {"name": "metrics", "containerPort": spec.metrics_port, "protocol": "TCP"},
            {"name": "direct", "containerPort": spec.direct_port, "protocol": "TCP"},
        ],
        "env": [
            *tf_config_env(spec, job.name, cluster_domain),
            # An environment variable, not a flag: a server without a metrics endpoint
            # ignores it rather than refusing to start.
            {"name": METRICS_PORT_ENV, "value": str(spec.metrics_port)},
            # Peers connect to the port the server reports, so it must be the declared one.
            {"name": DIRECT_PORT_ENV, "value": str(spec.direct_port)},
            *_cpu_budget_env(job),
            *map(dict, job.template.env),
        ],
        # The server answers grpc.health.v1 on its gRPC port once it can take work.
        "readinessProbe": {
            "grpc": {"port": spec.port},
            "periodSeconds": 5,
            "timeoutSeconds": 2,
            "failureThreshold": 3,
        },
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        },
        # The server writes a fatal error there; a crash that leaves nothing (killed, a
        # crash in the interpreter) is reported by the end of its log instead.
        "terminationMessagePath": TERMINATION_MESSAGE_PATH,
        "terminationMessagePolicy": "FallbackToLogsOnError",
    }
    resources = _resources(job)
    if resources:
        container["resources"] = resources
    if job.template.volume_mounts:
        container["volumeMounts"] = [dict(m) for m in job.template.volume_mounts]
    return container


def _cpu_budget_env(job: JobSpec) -> list[dict[str, Any]]:
    """The task's CPU budget through the downward API: its CPU limit, else its request (a
    request is no cgroup quota, so the server could not see it), in millicores. Without
    either, nothing: the downward API would give the node's allocatable CPUs."""
    for kind in ("limits", "requests"):
        if (job.resources.get(kind) or {}).get("cpu"):
            field = {"containerName": CONTAINER_NAME, "resource": f"{kind}.cpu", "divisor": "1m"}
            return [{"name": CPU_BUDGET_ENV, "valueFrom": {"resourceFieldRef": field}}]
    return []


def _resources(job: JobSpec) -> dict[str, Any]:
    resources = {key: dict(value) for key, value in job.resources.items() if value}
    if job.gpus > 0:
        # Extended resources are set as limits; a request, if given, must be equal.
        resources.setdefault("limits", {})[GPU_RESOURCE] = job.gpus
        if GPU_RESOURCE in resources.get("requests", {}):
            resources["requests"][GPU_RESOURCE] = job.gpus
    return resources
