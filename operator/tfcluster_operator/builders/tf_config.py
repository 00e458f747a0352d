"""TF_CONFIG: the cluster every task sees and the one task each pod is.

The cluster part is the same in every pod of a TFCluster; the task index differs per pod,
which a single pod template cannot say directly. So the template defines
``TFCLUSTER_TASK_INDEX`` from the pod's index label (downward API: a StatefulSet's
``apps.kubernetes.io/pod-index``, an Indexed Job's ``batch.kubernetes.io/job-completion-index``)
and ``TF_CONFIG`` refers to it as ``$(TFCLUSTER_TASK_INDEX)``, which the kubelet
expands when it starts the container: every pod gets a complete, literal TF_CONFIG, and a
server that only reads TF_CONFIG needs nothing else.
"""

from __future__ import annotations

import json
from typing import Any

from ..spec import TFClusterSpec
from ..task_contract import TASK_INDEX_ENV, TF_CONFIG_ENV
from .meta import POD_INDEX_LABEL


def task_address(spec: TFClusterSpec, job: str, index: int, cluster_domain: str = "") -> str:
    """``<name>-<job>-<i>.<name>-<job>.<ns>.svc[.<domain>]:<port>``: stable pod DNS."""
    return _address(spec, job, str(index), cluster_domain)


def _address(spec: TFClusterSpec, job: str, index: str, cluster_domain: str) -> str:
    child = spec.child_name(job)
    suffix = f".{cluster_domain}" if cluster_domain else ""
    return f"{child}-{index}.{child}.{spec.namespace}.svc{suffix}:{spec.port}"


def cluster_spec(spec: TFClusterSpec, cluster_domain: str = "") -> dict[str, list[str]]:
    """``{job: [address of task 0, 1, ...]}`` for every job with tasks (as TF's ClusterSpec):
    the cluster clients place their graphs on (``status.clusterSpec``)."""
    return {
        job.name: [task_address(spec, job.name, i, cluster_domain) for i in range(job.replicas)]
        for job in spec.jobs
        if job.replicas > 0
    }


def seen_by(spec: TFClusterSpec, job: str, index: str, cluster_domain: str = "") -> dict[str, Any]:
    """The cluster in the TF_CONFIG of task ``index`` of ``job``. Elastic jobs, whose size
    changes while they run, are left out but for the task itself (``{index: address}``, TF's
    sparse form): no task's TF_CONFIG depends on an elastic job's size, so scaling it only
    adds or removes its pods. Their peers learn them from the sessions that reach them."""
    cluster: dict[str, Any] = {}
    for other in spec.jobs:
        if other.replicas <= 0:
            continue
        if not other.elastic:
            addresses = [
                task_address(spec, other.name, i, cluster_domain) for i in range(other.replicas)
            ]
            cluster[other.name] = addresses
        elif other.name == job:
            cluster[job] = {index: _address(spec, job, index, cluster_domain)}
    return cluster


def tf_config(
    spec: TFClusterSpec, job: str, index: int, cluster_domain: str = ""
) -> dict[str, Any]:
    """The TF_CONFIG of one task, as the server will read it."""
    return {
        "cluster": seen_by(spec, job, str(index), cluster_domain),
        "task": {"type": job, "index": index},
    }


def tf_config_env(
    spec: TFClusterSpec, job: str, cluster_domain: str = "", index_label: str = POD_INDEX_LABEL
) -> list[dict[str, Any]]:
    """The env entries of a job's pod template that give each pod its own TF_CONFIG (the
    task index from the pod's ``index_label``: a StatefulSet's or an Indexed Job's)."""
    index_ref = f"$({TASK_INDEX_ENV})"
    cluster_json = json.dumps(seen_by(spec, job, _INDEX, cluster_domain), sort_keys=True)
    cluster = _escape(cluster_json).replace(_INDEX, index_ref)
    task_type = _escape(json.dumps(job))
    value = f'{{"cluster": {cluster}, "task": {{"type": {task_type}, "index": {index_ref}}}}}'
    return [
        {
            "name": TASK_INDEX_ENV,
            "valueFrom": {
                "fieldRef": {
                    "apiVersion": "v1",
                    "fieldPath": f"metadata.labels['{index_label}']",
                }
            },
        },
        {"name": TF_CONFIG_ENV, "value": value},
    ]


# Stands for the task index in a template's TF_CONFIG until it becomes $(TFCLUSTER_TASK_INDEX)
# ('@' is in no DNS name nor job name).
_INDEX = "@TASK_INDEX@"


def _escape(text: str) -> str:
    """Keep a literal '$' literal under the kubelet's $(VAR) expansion."""
    return text.replace("$", "$$")
