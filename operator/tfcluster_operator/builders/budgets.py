"""A PodDisruptionBudget per job that asks for one (``podDisruptionBudget``): e.g. the ps,
none of whose tasks may be drained voluntarily (``maxUnavailable: 0``)."""

from __future__ import annotations

from typing import Any

from ..spec import JobSpec, TFClusterSpec
from .meta import OwnerRef, job_labels, job_selector, object_meta


def disruption_budget(spec: TFClusterSpec, job: JobSpec, owner: OwnerRef) -> dict[str, Any] | None:
    if job.disruption_budget is None or job.replicas == 0:
        return None
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": object_meta(
            spec,
            spec.child_name(job.name),
            job_labels(spec, job.name),
            owner,
        ),
        "spec": {
            **dict(job.disruption_budget),
            "selector": {"matchLabels": job_selector(spec, job.name)},
        },
    }
