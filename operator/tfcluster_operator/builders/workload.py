"""Kueue's Workload for a queued run: one pod set per TF job (see kueue.py)."""

from __future__ import annotations

from typing import Any

from ..kueue import workload_name
from ..spec import TFClusterSpec
from .jobs import indexed_job
from .meta import OwnerRef, common_labels, object_meta

API_VERSION = "kueue.x-k8s.io/v1beta2"


def workload(
    spec: TFClusterSpec, owner: OwnerRef, cluster_domain: str = ""
) -> dict[str, Any] | None:
    """The Workload Kueue admits the whole run by; None when the run is not queued."""
    if not spec.queue_name:
        return None
    pod_sets = [
        {
            "name": job.name,
            "count": job.replicas,
            "template": indexed_job(spec, job, owner, cluster_domain)["spec"]["template"],
        }
        for job in spec.jobs
        if job.replicas > 0
    ]
    body: dict[str, Any] = {"queueName": spec.queue_name, "podSets": pod_sets}
    return {
        "apiVersion": API_VERSION,
        "kind": "Workload",
        "metadata": object_meta(
            spec, workload_name(spec.name), common_labels(spec, "workload"), owner
        ),
        "spec": body,
    }
