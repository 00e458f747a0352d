"""Labels, owner references and object metadata shared by every child."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import API_VERSION, KIND
from ..spec import TFClusterSpec

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "tfcluster-operator"
CLUSTER_LABEL = "tfcluster.dev/cluster"
JOB_LABEL = "tfcluster.dev/job"
# Set by the StatefulSet controller on every pod (Kubernetes >= 1.28).
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
# Set by the Job controller on every pod of an Indexed Job (Kubernetes >= 1.28).
JOB_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
INDEX_LABELS = (POD_INDEX_LABEL, JOB_INDEX_LABEL)


@dataclass(frozen=True)
class OwnerRef:
    """The TFCluster that owns the children: deleting it deletes them (garbage collection)."""

    name: str
    uid: str

    def reference(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }


def cluster_selector(spec: TFClusterSpec) -> dict[str, str]:
    return {CLUSTER_LABEL: spec.name}


def job_selector(spec: TFClusterSpec, job: str) -> dict[str, str]:
    """The labels that select a job's pods (a StatefulSet's selector is immutable)."""
    return {CLUSTER_LABEL: spec.name, JOB_LABEL: job}


def common_labels(spec: TFClusterSpec, component: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "tfcluster",
        "app.kubernetes.io/instance": spec.name,
        "app.kubernetes.io/component": component,
        MANAGED_BY_LABEL: MANAGED_BY,
        CLUSTER_LABEL: spec.name,
    }


def job_labels(spec: TFClusterSpec, job: str) -> dict[str, str]:
    """The labels of what is made for one job (its StatefulSet, Job, disruption budget)."""
    return {**common_labels(spec, job), **job_selector(spec, job)}


def object_meta(
    spec: TFClusterSpec, name: str, labels: dict[str, str], owner: OwnerRef
) -> dict[str, Any]:
    return {
        "name": name,
        "namespace": spec.namespace,
        "labels": labels,
        "ownerReferences": [owner.reference()],
    }
