"""Gang scheduling: the PodGroup a gang scheduler places all of a TFCluster's tasks by, and
the marks on each pod that name it.

A TF cluster waits for every task (each worker's session waits for the ps, a sync step for
every worker), so tasks placed piecemeal can hold resources forever while the rest wait: a
PodGroup with ``minMember`` = every task asks the scheduler for all of them or none.

- ``Coscheduling``: the scheduler-plugins coscheduling plugin (PodGroup
  ``scheduling.x-k8s.io/v1alpha1``; pods carry the label ``scheduling.x-k8s.io/pod-group``);
- ``Volcano``: Volcano's scheduler (PodGroup ``scheduling.volcano.sh/v1beta1``, with a queue
  and a priority class; pods carry the annotation ``scheduling.k8s.io/group-name``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..spec import TFClusterSpec
from .meta import OwnerRef, common_labels, object_meta

COSCHEDULING_API = ("scheduling.x-k8s.io", "v1alpha1", "podgroups")
VOLCANO_API = ("scheduling.volcano.sh", "v1beta1", "podgroups")
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"
VOLCANO_ANNOTATION = "scheduling.k8s.io/group-name"


@dataclass(frozen=True)
class PodGroupMarks:
    """What every pod of a gang carries."""

    scheduler_name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    priority_class_name: str | None = None


def podgroup_name(spec: TFClusterSpec) -> str:
    return spec.name


def podgroup_api(gang: str) -> tuple[str, str, str]:
    return VOLCANO_API if gang == "Volcano" else COSCHEDULING_API


def podgroup_marks(spec: TFClusterSpec) -> PodGroupMarks | None:
    scheduling = spec.scheduling
    if scheduling is None:
        return None
    name = podgroup_name(spec)
    if scheduling.gang == "Volcano":
        return PodGroupMarks(
            scheduling.scheduler_name,
            annotations={VOLCANO_ANNOTATION: name},
            priority_class_name=scheduling.priority_class_name,
        )
    return PodGroupMarks(
        scheduling.scheduler_name,
        labels={COSCHEDULING_LABEL: name},
        priority_class_name=scheduling.priority_class_name,
    )


def podgroup(spec: TFClusterSpec, owner: OwnerRef) -> dict[str, Any] | None:
    """The PodGroup of the TFCluster's gang, None without ``spec.scheduling``."""
    scheduling = spec.scheduling
    if scheduling is None:
        return None
    group, version, _ = podgroup_api(scheduling.gang)
    body: dict[str, Any] = {"minMember": spec.total_tasks}
    if scheduling.gang == "Volcano":
        if scheduling.queue:
            body["queue"] = scheduling.queue
        if scheduling.priority_class_name:
            body["priorityClassName"] = scheduling.priority_class_name
    elif scheduling.schedule_timeout_seconds is not None:
        body["scheduleTimeoutSeconds"] = scheduling.schedule_timeout_seconds
    return {
        "apiVersion": f"{group}/{version}",
        "kind": "PodGroup",
        "metadata": object_meta(spec, podgroup_name(spec), common_labels(spec, "podgroup"), owner),
        "spec": body,
    }
