"""The pod template of a job's tasks, shared by the StatefulSet (long-running cluster) and the
Indexed Job (a run to completion): the container, its TF_CONFIG, ports, resources, what the
job's template adds, and the gang scheduler's marks."""

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
from .meta import common_labels, job_selector
from .podgroups import podgroup_marks
from .tf_config import tf_config_env
from .tls import secure_pod

CONTAINER_NAME = "tfcluster-server"
GPU_RESOURCE = "nvidia.com/gpu"


def pod_template(
    spec: TFClusterSpec,
    job: JobSpec,
    cluster_domain: str,
    index_label: str,
    extra_spec: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``template`` of a job's controller; ``index_label`` is the pod label that holds the
    task index (the StatefulSet's pod-index, the Job's completion index)."""
    # The user's labels first: ours win, selectors and Services depend on them.
    labels = {
        **job.template.labels,
        **common_labels(spec, job.name),
        **job_selector(spec, job.name),
    }
    annotations = _pod_annotations(spec, job)
    pod = _pod_spec(spec, job, cluster_domain, index_label)
    gang = podgroup_marks(spec)
    if gang is not None:
        labels.update(gang.labels)
        annotations.update(gang.annotations)
        pod["schedulerName"] = gang.scheduler_name
        if gang.priority_class_name and not job.template.priority_class_name:
            pod["priorityClassName"] = gang.priority_class_name
    pod.update(extra_spec or {})
    return {"metadata": {"labels": labels, "annotations": annotations}, "spec": pod}


def _pod_annotations(spec: TFClusterSpec, job: JobSpec) -> dict[str, str]:
    return {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": str(spec.metrics_port),
        "prometheus.io/path": "/metrics",
        **job.template.annotations,
    }


def _pod_spec(
    spec: TFClusterSpec, job: JobSpec, cluster_domain: str, index_label: str
) -> dict[str, Any]:
    overrides = job.template
    pod: dict[str, Any] = {
        "containers": [_container(spec, job, cluster_domain, index_label)],
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
    secure_pod(spec, job.name, pod)
    return pod


def _container(
    spec: TFClusterSpec, job: JobSpec, cluster_domain: str, index_label: str
) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": CONTAINER_NAME,
        "image": job.image or spec.image,
        "imagePullPolicy": spec.image_pull_policy,
    }
    if job.runs_program:
        # The user's program (a TF_CONFIG program, on our runtime or on TensorFlow's own
        # image): the image's entrypoint when only args are given.
        if job.command is not None:
            container["command"] = list(job.command)
        if job.args is not None:
            container["args"] = list(job.args)
    else:
        container["command"] = [SERVER_COMMAND]
    if job.working_dir:
        container["workingDir"] = job.working_dir
    container["ports"] = [
        {"name": "grpc", "containerPort": spec.port, "protocol": "TCP"},
        {"name": "metrics", "containerPort": spec.metrics_port, "protocol": "TCP"},
        {"name": "direct", "containerPort": spec.direct_port, "protocol": "TCP"},
    ]
    container["env"] = [
        *tf_config_env(spec, job.name, cluster_domain, index_label),
        # An environment variable, not a flag: a server without a metrics endpoint
        # ignores it rather than refusing to start.
        {"name": METRICS_PORT_ENV, "value": str(spec.metrics_port)},
        # Peers connect to the port the server reports, so it must be the declared one.
        {"name": DIRECT_PORT_ENV, "value": str(spec.direct_port)},
        *_cpu_budget_env(job),
        *map(dict, job.template.env),
    ]
    if not job.runs_program:
        # The server answers grpc.health.v1 on its gRPC port once it can take work; a
        # program may serve nothing there (an evaluator) or not that service (TensorFlow).
        container["readinessProbe"] = {
            "grpc": {"port": spec.port},
            "periodSeconds": 5,
            "timeoutSeconds": 2,
            "failureThreshold": 3,
        }
    container["securityContext"] = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    # The server writes a fatal error there; a crash that leaves nothing (killed, a crash
    # in the interpreter) is reported by the end of its log instead.
    container["terminationMessagePath"] = TERMINATION_MESSAGE_PATH
    container["terminationMessagePolicy"] = "FallbackToLogsOnError"
    resources = _resources(job)
    if resources:
        container["resources"] = resources
    if job.template.volume_mounts:
        container["volumeMounts"] = [dict(m) for m in job.template.volume_mounts]
    return container


def _resources(job: JobSpec) -> dict[str, Any]:
    resources = {key: dict(value) for key, value in job.resources.items() if value}
    if job.gpus > 0:
        # Extended resources are set as limits; a request, if given, must be equal.
        resources.setdefault("limits", {})[GPU_RESOURCE] = job.gpus
        if GPU_RESOURCE in resources.get("requests", {}):
            resources["requests"][GPU_RESOURCE] = job.gpus
    return resources


def _cpu_budget_env(job: JobSpec) -> list[dict[str, Any]]:
    """The task's CPU budget through the downward API: its CPU limit, else its request (a
    request is no cgroup quota, so the server could not see it), in millicores. Without
    either, nothing: the downward API would give the node's allocatable CPUs."""
    for kind in ("limits", "requests"):
        if (job.resources.get(kind) or {}).get("cpu"):
            field = {"containerName": CONTAINER_NAME, "resource": f"{kind}.cpu", "divisor": "1m"}
            return [{"name": CPU_BUDGET_ENV, "valueFrom": {"resourceFieldRef": field}}]
    return []
