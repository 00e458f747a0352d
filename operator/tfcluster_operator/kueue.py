"""Kueue: a run labelled ``kueue.x-k8s.io/queue-name`` is admitted as one Workload (pure).

The operator plays the job side of Kueue's contract for a custom job (what Kueue's
jobframework does for its built-in integrations):

1. it creates a Workload owned by the TFCluster, one pod set per TF job (count = replicas,
   the pod template its Indexed Job runs), in the label's LocalQueue; the run's Jobs are
   created suspended;
2. when Kueue admits the Workload (condition ``Admitted``), the Jobs are resumed;
3. when Kueue evicts it (condition ``Evicted``: preemption, a deactivated Workload, ...) the
   Jobs are suspended again, and once their pods are gone the quota reservation is given
   back (``QuotaReserved``/``Admitted`` False, no ``admission``), so Kueue can queue it again;
4. when the run ends and its pods are gone, the Workload is marked ``Finished``: Kueue
   releases the quota.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WAITING = "WaitingForAdmission"
EVICTED = "Evicted"
# Kueue's scheduler writes a Workload's admission under this field manager; its job
# reconcilers clear it under the same one (server-side apply drops what a manager no longer
# sets), and so does the operator when it gives an evicted run's quota back.
ADMISSION_MANAGER = "kueue-admission"


def workload_name(cluster: str) -> str:
    return f"tfcluster-{cluster}"


def _condition(workload: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for cond in (workload.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind:
            return dict(cond)
    return None


def _true(workload: Mapping[str, Any], kind: str) -> bool:
    return (_condition(workload, kind) or {}).get("status") == "True"


def gate(workload: Mapping[str, Any] | None) -> str | None:
    """Why the run may not run now: ``WaitingForAdmission``, ``Evicted``; None once admitted."""
    if workload is None:
        return WAITING
    if _true(workload, "Evicted"):
        return EVICTED
    if _true(workload, "Admitted"):
        return None
    return WAITING


def finished(workload: Mapping[str, Any]) -> bool:
    return _true(workload, "Finished")


def holds_quota(workload: Mapping[str, Any]) -> bool:
    return bool((workload.get("status") or {}).get("admission")) or _true(workload, "QuotaReserved")


def finished_status(phase: str, message: str, now: str) -> dict[str, Any]:
    """The Workload status the run applies once it ended (the quota goes back)."""
    return {
        "conditions": [
            {
                "type": "Finished",
                "status": "True",
                "reason": phase,
                "message": message[:32768],
                "lastTransitionTime": now,
            }
        ]
    }


def released_status(workload: Mapping[str, Any], now: str) -> dict[str, Any]:
    """After an eviction, once the pods are gone: no admission, no quota reserved (applied
    as ``ADMISSION_MANAGER``, which owns the admission)."""
    evicted = _condition(workload, "Evicted") or {}
    message = str(evicted.get("message") or "evicted")
    return {
        "conditions": [
            {
                "type": kind,
                "status": "False",
                "reason": "Pending",
                "message": message,
                "lastTransitionTime": now,
            }
            for kind in ("QuotaReserved", "Admitted")
        ]
    }


def flavors(workload: Mapping[str, Any]) -> dict[str, list[str]]:
    """The ResourceFlavors Kueue admitted each pod set into: {pod set: [flavor, ...]}."""
    admission = (workload.get("status") or {}).get("admission") or {}
    found: dict[str, list[str]] = {}
    for assignment in admission.get("podSetAssignments") or []:
        names = sorted(set((assignment.get("flavors") or {}).values()))
        found[str(assignment.get("name"))] = names
    return found
