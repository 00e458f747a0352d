"""A TFCluster's status, computed from its children (pure: no API calls here).

What a user reads with ``kubectl get tfc`` (phase, reason, ready tasks, restarts) and
``kubectl describe tfc`` (the Ready, Progressing and Degraded conditions):

- a task whose container restarted ``RESTART_THRESHOLD`` times and is not running steadily
  (not ready, or its last crash ended less than ``CRASH_WINDOW_SECONDS`` ago: the kubelet's
  own back-off reset) is crash-looping: Degraded, reason ``CrashLoopBackOff``, with the
  task, the exit code, the kubelet's reason and the container's last message;
- a container the kubelet cannot start (image pull, bad config) degrades at once, with the
  kubelet's reason;
- pods the scheduler cannot place (``PodScheduled=False``) keep the cluster Pending or
  Progressing with reason ``Unschedulable`` and the scheduler's message (which names the
  missing resource or the taint).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .builders.meta import INDEX_LABELS, JOB_LABEL
from .builders.services import endpoint
from .builders.tf_config import cluster_spec
from .spec import SpecError, TFClusterSpec

# Restarts after which a task that still does not run steadily counts as crash-looping.
RESTART_THRESHOLD = 3
# A crash less than this long ago still counts (the kubelet resets its back-off after 10 min).
CRASH_WINDOW_SECONDS = 600
# Container waits that mean the kubelet cannot start the task as things stand.
FAILING_WAITING_REASONS = frozenset(
    {
        "ImagePullBackOff",
        "ErrImagePull",
        "InvalidImageName",
        "CreateContainerConfigError",
        "CreateContainerError",
        "RunContainerError",
    }
)
CRASH_LOOP = "CrashLoopBackOff"
UNSCHEDULABLE = "Unschedulable"
# A task of a cluster that was running (same generation) is gone or not ready: its peers are
# cut off from it until it is back, so the cluster is degraded, not merely starting.
TASK_LOST = "TaskLost"
MAX_MESSAGE = 1024
MAX_LAST_WORDS = 300
TASKS_NAMED = 3

PHASE_PENDING = "Pending"
PHASE_PROGRESSING = "Progressing"
PHASE_RUNNING = "Running"
PHASE_DEGRADED = "Degraded"
PHASE_SUSPENDED = "Suspended"
PHASE_FAILED = "Failed"
PHASES = (
    PHASE_PENDING,
    PHASE_PROGRESSING,
    PHASE_RUNNING,
    PHASE_DEGRADED,
    PHASE_SUSPENDED,
    PHASE_FAILED,
)


@dataclass(frozen=True)
class TaskProblem:
    """Why one task does not run: ``reason`` is CamelCase; ``detail`` is the same for tasks
    that fail alike, so they are reported together."""

    reason: str
    task: str  # "/job:ps/task:0 (pod example-ps-0)"
    detail: str


@dataclass(frozen=True)
class JobStatus:
    name: str
    desired: int
    current: int
    ready: int
    updated: int
    restarts: int
    settled: bool  # the StatefulSet has caught up with its spec and rolled every pod
    problems: tuple[TaskProblem, ...]
    # A new pod template is being rolled out (revisions differ, or the spec is not observed
    # yet); a pod merely gone lowers `updated` too, so that alone does not say rolling.
    rolling: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "desired": self.desired,
            "current": self.current,
            "ready": self.ready,
            "updated": self.updated,
            "restarts": self.restarts,
        }


def parse_time(text: Any) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def task_name(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    labels = meta.get("labels") or {}
    name = meta.get("name", "?")
    job = labels.get(JOB_LABEL)
    index = next((labels[key] for key in INDEX_LABELS if key in labels), None)
    if job is None or index is None:
        return f"pod {name}"
    return f"/job:{job}/task:{index} (pod {name})"


def last_words(message: Any) -> str:
    """The container's termination message, as one line: its last non-empty line (the
    exception, when the kubelet fell back to the log's tail)."""
    lines = [line.strip() for line in str(message or "").splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= MAX_LAST_WORDS else last[: MAX_LAST_WORDS - 3] + "..."


def _crash_detail(terminated: Mapping[str, Any]) -> str:
    detail = f"crash-looping ({RESTART_THRESHOLD}+ restarts)"
    if terminated:
        detail += f", last exit code {terminated.get('exitCode', '?')}"
        if terminated.get("reason"):
            detail += f" ({terminated['reason']})"
        words = last_words(terminated.get("message"))
        if words:
            detail += f": {words}"
    return detail


def container_problem(task: str, cs: Mapping[str, Any], now: datetime | None) -> TaskProblem | None:
    """Why this container cannot run, if it cannot."""
    state = cs.get("state") or {}
    waiting = state.get("waiting") or {}
    if waiting.get("reason") in FAILING_WAITING_REASONS:
        message = str(waiting.get("message") or "").strip()
        detail = f"{waiting['reason']}: {message}" if message else str(waiting["reason"])
        return TaskProblem(str(waiting["reason"]), task, detail)
    if int(cs.get("restartCount") or 0) < RESTART_THRESHOLD:
        return None
    terminated = state.get("terminated") or (cs.get("lastState") or {}).get("terminated") or {}
    if cs.get("ready"):
        # Running and ready again: still crash-looping only if the last crash was recent.
        finished = parse_time(terminated.get("finishedAt"))
        if finished is None or now is None:
            return None
        if (now - finished).total_seconds() >= CRASH_WINDOW_SECONDS:
            return None
    return TaskProblem(CRASH_LOOP, task, _crash_detail(terminated))


def pod_problems(pod: Mapping[str, Any], now: datetime | None) -> list[TaskProblem]:
    """What keeps the task of ``pod`` from running (nothing for a healthy pod)."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return []
    task = task_name(pod)
    st = pod.get("status") or {}
    if st.get("phase") == "Failed":
        why = ": ".join(str(x) for x in (st.get("reason"), st.get("message")) if x)
        return [TaskProblem("PodFailed", task, f"pod failed: {why}" if why else "pod failed")]
    return live_pod_problems(pod, now)


def live_pod_problems(pod: Mapping[str, Any], now: datetime | None) -> list[TaskProblem]:
    """What keeps the task of a pod that has not failed from running: a container the
    kubelet cannot start, a pod no node takes."""
    task = task_name(pod)
    st = pod.get("status") or {}
    found = [
        problem
        for cs in st.get("containerStatuses") or []
        if (problem := container_problem(task, cs, now)) is not None
    ]
    for cond in st.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            message = str(cond.get("message") or cond.get("reason") or "not scheduled")
            found.append(TaskProblem(UNSCHEDULABLE, task, f"cannot be scheduled: {message}"))
    return found


def describe(problems: Sequence[TaskProblem]) -> str:
    """Problems grouped by what went wrong, each group naming its first tasks."""
    groups: dict[tuple[str, str], list[str]] = {}
    for p in problems:
        groups.setdefault((p.reason, p.detail), []).append(p.task)
    parts = []
    for (_, detail), tasks in groups.items():
        named = ", ".join(tasks[:TASKS_NAMED])
        if len(tasks) > TASKS_NAMED:
            named += f" and {len(tasks) - TASKS_NAMED} more tasks"
        parts.append(f"{named}: {detail}")
    text = "; ".join(parts)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def signatures(problems: Sequence[TaskProblem]) -> dict[str, frozenset[tuple[str, str]]]:
    """What went wrong, without which tasks: the same failure spreading to more tasks is
    no news (the conditions list the tasks; events are posted when this changes)."""
    failing = frozenset((p.reason, p.detail) for p in problems if p.reason != UNSCHEDULABLE)
    unschedulable = frozenset((p.reason, p.detail) for p in problems if p.reason == UNSCHEDULABLE)
    return {"Degraded": failing, UNSCHEDULABLE: unschedulable}


def task_problems(
    spec: TFClusterSpec, pods: Sequence[Mapping[str, Any]], now: str
) -> list[TaskProblem]:
    """Every problem of the pods of the spec's jobs."""
    at = parse_time(now)
    jobs = {j.name for j in spec.jobs}
    return [
        p
        for pod in pods
        if (pod.get("metadata", {}).get("labels") or {}).get(JOB_LABEL) in jobs
        for p in pod_problems(pod, at)
    ]


def job_status(
    spec: TFClusterSpec,
    job: str,
    sts: Mapping[str, Any] | None,
    pods: Sequence[Mapping[str, Any]],
    now: datetime | None = None,
) -> JobStatus:
    desired = 0 if spec.suspend else spec.job(job).replicas
    own = [p for p in pods if (p.get("metadata", {}).get("labels") or {}).get(JOB_LABEL) == job]
    restarts = sum(
        int(cs.get("restartCount") or 0)
        for pod in own
        for cs in (pod.get("status") or {}).get("containerStatuses") or []
    )
    problems = tuple(p for pod in own for p in pod_problems(pod, now))
    if sts is None:
        return JobStatus(job, desired, 0, 0, 0, restarts, desired == 0, problems)
    st = sts.get("status") or {}
    current = int(st.get("replicas") or 0)
    ready = int(st.get("readyReplicas") or 0)
    updated = int(st.get("updatedReplicas") or 0)
    observed = int(st.get("observedGeneration") or 0) >= int(
        sts.get("metadata", {}).get("generation") or 0
    )
    rolled = desired == 0 or (
        updated == desired and st.get("currentRevision") == st.get("updateRevision")
    )
    settled = observed and current == desired and rolled
    rolling = not observed or st.get("currentRevision") != st.get("updateRevision")
    return JobStatus(job, desired, current, ready, updated, restarts, settled, problems, rolling)


def compute_status(
    spec: TFClusterSpec,
    statefulsets: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
    *,
    generation: int,
    previous: Mapping[str, Any] | None,
    now: str,
    cluster_domain: str = "",
    reconcile_error: str | None = None,
) -> dict[str, Any]:
    """The full status of a valid TFCluster from its StatefulSets and pods."""
    at = parse_time(now)
    by_name = {s["metadata"]["name"]: s for s in statefulsets}
    jobs = [
        job_status(spec, j.name, by_name.get(spec.child_name(j.name)), pods, at) for j in spec.jobs
    ]
    desired = sum(j.desired for j in jobs)
    ready = sum(min(j.ready, j.desired) for j in jobs)
    settled = all(j.settled for j in jobs)
    all_ready = settled and all(j.ready >= j.desired for j in jobs)
    problems = [p for j in jobs for p in j.problems]
    failing = [p for p in problems if p.reason != UNSCHEDULABLE]
    unschedulable = [p for p in problems if p.reason == UNSCHEDULABLE]

    rolling = any(j.rolling for j in jobs)
    if reconcile_error:
        degraded: tuple[str, str] | None = ("ReconcileError", reconcile_error)
    elif failing:
        degraded = (failing[0].reason, describe(failing))
    elif (
        not all_ready
        and not spec.suspend
        and not rolling
        and not unschedulable
        and _was_serving(previous, generation)
        and _a_task_was_replaced(jobs, pods)
    ):
        degraded = (TASK_LOST, f"a running cluster lost tasks, {_waiting_for(jobs)}")
    else:
        degraded = None

    if spec.suspend:
        gone = all(j.current == 0 for j in jobs)
        phase = PHASE_SUSPENDED if gone else PHASE_PROGRESSING
        ready_cond = ("False", "Suspended", "spec.suspend is true: every job is scaled to 0")
        progress = (
            ("False", "Suspended", "every task is stopped")
            if gone
            else ("True", "Suspending", "stopping tasks")
        )
    elif all_ready:
        phase = PHASE_RUNNING
        ready_cond = ("True", "AllTasksReady", f"{ready}/{desired} tasks ready")
        progress = ("False", "Settled", "every task runs the current spec")
    else:
        phase = PHASE_PENDING if ready == 0 else PHASE_PROGRESSING
        if unschedulable:
            reason = UNSCHEDULABLE
            waiting = describe(unschedulable)
        else:
            # A pod merely gone lowers `updated` too: only new revisions say rolling.
            reason = "RollingUpdate" if rolling else "TasksStarting"
            waiting = _waiting_for(jobs)
        ready_cond = (
            "False",
            reason if unschedulable else "TasksNotReady",
            (f"{ready}/{desired} tasks ready"),
        )
        progress = ("True", reason, waiting)
    if degraded is not None and phase != PHASE_SUSPENDED:
        phase = PHASE_DEGRADED

    conditions = [
        make_condition("Ready", *ready_cond, generation),
        make_condition("Progressing", *progress, generation),
        make_condition(
            "Degraded",
            "True" if degraded else "False",
            degraded[0] if degraded else "AsExpected",
            degraded[1] if degraded else "no task is failing",
            generation,
        ),
    ]
    return {
        "phase": phase,
        "reason": _headline(conditions),
        "observedGeneration": generation,
        "endpoint": endpoint(spec, cluster_domain),
        "clientTask": str(spec.client),
        "clusterSpec": cluster_spec(spec, cluster_domain),
        "readyTasks": ready,
        "desiredTasks": desired,
        "ready": ", ".join(f"{j.name} {min(j.ready, j.desired)}/{j.desired}" for j in jobs),
        "restarts": sum(j.restarts for j in jobs),
        "jobs": [j.as_dict() for j in jobs],
        "conditions": carry_transition_times(conditions, previous, now),
    }


def invalid_status(
    error: SpecError, *, generation: int, previous: Mapping[str, Any] | None, now: str
) -> dict[str, Any]:
    """The status of a TFCluster whose spec cannot run: Failed, with the reason.

    Children that exist from an earlier valid spec are left alone (not scaled, not
    deleted): fixing the spec picks up where things were.
    """
    conditions = [
        make_condition("Ready", "False", error.reason, error.message, generation),
        make_condition(
            "Progressing", "False", error.reason, "waiting for a valid spec", generation
        ),
        make_condition("Degraded", "True", error.reason, error.message, generation),
    ]
    return {
        "phase": PHASE_FAILED,
        "reason": error.reason,
        "observedGeneration": generation,
        "conditions": carry_transition_times(conditions, previous, now),
    }


def _headline(conditions: Sequence[Mapping[str, Any]]) -> str:
    """The one reason `kubectl get` shows: Degraded's when degraded, else what progress
    waits for, else Ready's."""
    by_type = {c["type"]: c for c in conditions}
    for kind in ("Degraded", "Progressing"):
        if by_type[kind]["status"] == "True":
            return str(by_type[kind]["reason"])
    return str(by_type["Ready"]["reason"])


def carry_transition_times(
    conditions: list[dict[str, Any]], previous: Mapping[str, Any] | None, now: str
) -> list[dict[str, Any]]:
    """lastTransitionTime changes only when a condition's status does."""
    before = {c.get("type"): c for c in (previous or {}).get("conditions") or []}
    for cond in conditions:
        old = before.get(cond["type"])
        if (
            old is not None
            and old.get("status") == cond["status"]
            and old.get("lastTransitionTime")
        ):
            cond["lastTransitionTime"] = old["lastTransitionTime"]
        else:
            cond["lastTransitionTime"] = now
    return conditions


def condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for cond in status.get("conditions") or []:
        if cond.get("type") == kind:
            return dict(cond)
    return None


def make_condition(
    kind: str, status: str, reason: str, message: str, generation: int
) -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "observedGeneration": generation,
    }


def _a_task_was_replaced(jobs: Sequence[JobStatus], pods: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a job short of ready tasks misses a pod or has a fresh one not ready yet (the
    old pod deleted or evicted). A container restarting in its pod is judged by the
    crash-loop rules instead: a restart or two alone does not degrade."""
    for job in jobs:
        # By its pods, not by the StatefulSet's readyReplicas: that lags a deleted pod.
        own = [
            p
            for p in pods
            if (p.get("metadata", {}).get("labels") or {}).get(JOB_LABEL) == job.name
        ]
        if len(own) < job.desired:
            return True
        for pod in own:
            if (pod.get("metadata") or {}).get("deletionTimestamp"):
                return True  # being deleted: lost even while it still answers
            statuses = (pod.get("status") or {}).get("containerStatuses") or []
            ready = bool(statuses) and all(cs.get("ready") for cs in statuses)
            restarted = any(int(cs.get("restartCount") or 0) > 0 for cs in statuses)
            if not ready and not restarted:
                return True
    return False


def _was_serving(previous: Mapping[str, Any] | None, generation: int) -> bool:
    """Whether the status before this one showed this generation running (or already
    degraded by lost tasks): a task not ready now was lost, not still starting."""
    if not previous or previous.get("observedGeneration") != generation:
        return False
    if previous.get("phase") == PHASE_RUNNING:
        return True
    return any(
        c.get("type") == "Degraded" and c.get("reason") == TASK_LOST
        for c in previous.get("conditions") or ()
    )


def _waiting_for(jobs: Sequence[JobStatus]) -> str:
    parts = [
        f"{j.name}: {j.ready}/{j.desired} ready, {j.updated}/{j.desired} updated"
        for j in jobs
        if not (j.settled and j.ready >= j.desired)
    ]
    return "waiting for " + "; ".join(parts)
