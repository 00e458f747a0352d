"""One StatefulSet per job: stable names (``<name>-<job>-<i>``) for stable task addresses."""

from __future__ import annotations

from typing import Any

from ..spec import JobSpec, TFClusterSpec
from .meta import POD_INDEX_LABEL, OwnerRef, job_labels, job_selector, object_meta
from .pods import CONTAINER_NAME, GPU_RESOURCE, pod_template

__all__ = ["CONTAINER_NAME", "GPU_RESOURCE", "statefulset"]


def statefulset(
    spec: TFClusterSpec, job: JobSpec, owner: OwnerRef, cluster_domain: str = ""
) -> dict[str, Any]:
    """The StatefulSet of ``job``: its pods run ``tfcluster-server`` (or the job's program)
    with their TF_CONFIG."""
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": object_meta(
            spec,
            spec.child_name(job.name),
            job_labels(spec, job.name),
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
            "template": pod_template(spec, job, cluster_domain, POD_INDEX_LABEL),
        },
    }
