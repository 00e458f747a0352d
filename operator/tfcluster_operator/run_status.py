"""A run to completion (spec.runPolicy): what it has come to, from its Indexed Jobs and their
pods (pure: no API calls here).

The Job controller creates, replaces and fails pods as each Job's policy says (builders/
jobs.py); this module reads the Jobs as the run's record and decides the run:

- **Succeeded** when the success policy is met — ``ChiefOrWorker0``: task 0 of the chief
  (or of the workers when there is no chief) exited 0; ``AllWorkers``: every worker (and the
  chief) did — and the evaluator, if there is one, has finished too: it is never stopped
  because training ended (its last evaluation reads the final checkpoint);
- **Failed** when a Job failed (a task's exit code its restart policy does not retry, its
  own backoffLimit, the deadline), or when the retries of all jobs together pass the run's
  backoffLimit; the status names the failing task, its exit code, the kubelet's reason and
  the container's last message;
- Restarting while a failed task is being replaced, Running when every task runs, Created
  before. A run that ended stays ended: the Jobs may go (cleanPodPolicy All) but the status
  keeps its verdict, its times and its failure.

Retries count the failures the Job controller counted (``status.failed``; a pod evicted,
preempted or deleted off a lost node carries DisruptionTarget and is replaced without being
counted) and, for ``OnFailure`` jobs, the container restarts of live pods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .builders.meta import JOB_LABEL
from .spec import CHIEF_JOBS, EVALUATOR_JOB, JobSpec, TFClusterSpec
from .status import (
    UNSCHEDULABLE,
    TaskProblem,
    carry_transition_times,
    condition,
    describe,
    last_words,
    live_pod_problems,
    make_condition,
    parse_time,
    task_name,
)

PHASE_CREATED = "Created"
PHASE_RUNNING = "Running"
PHASE_RESTARTING = "Restarting"
PHASE_SUCCEEDED = "Succeeded"
PHASE_FAILED = "Failed"
PHASE_SUSPENDED = "Suspended"
CONDITIONS = ("Created", "Running", "Restarting", "Succeeded", "Failed")
ENDED = (PHASE_SUCCEEDED, PHASE_FAILED)
# The Job controller's reasons, as the run reports them.
TASK_FAILED = "TaskFailed"
BACKOFF_LIMIT = "BackoffLimitExceeded"
DEADLINE = "DeadlineExceeded"


@dataclass(frozen=True)
class TaskFailure:
    """The task that failed a run (or was last retried): what the kubelet said of it."""

    task: str  # "/job:worker/task:1"
    pod: str
    exit_code: int | None
    reason: str  # the container's terminated reason (Error, OOMKilled) or the pod's
    message: str  # the container's last words
    finished: str = ""

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"task": self.task, "pod": self.pod, "reason": self.reason}
        if self.exit_code is not None:
            found["exitCode"] = self.exit_code
        if self.message:
            found["message"] = self.message
        return found

    def describe(self) -> str:
        code = "" if self.exit_code is None else f" with exit code {self.exit_code}"
        text = f"{self.task} (pod {self.pod}) failed{code}"
        if self.reason:
            text += f" ({self.reason})"
        return f"{text}: {self.message}" if self.message else text


@dataclass(frozen=True)
class JobProgress:
    """One TF job's Indexed Job as the run sees it."""

    name: str
    desired: int
    active: int = 0
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    restarts: int = 0
    completed: frozenset[int] = frozenset()
    complete: bool = False  # the Job has its Complete condition
    failure: tuple[str, str] | None = None  # the Job's Failed/FailureTarget (reason, message)
    exists: bool = False

    @property
    def finished(self) -> bool:
        return self.complete or self.failure is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "desired": self.desired,
            "active": self.active,
            "ready": min(self.running + len(self.completed), self.desired),
            "succeeded": self.succeeded,
            "failed": self.failed,
            "restarts": self.restarts,
        }


@dataclass(frozen=True)
class RunOutcome:
    """What a run has come to, and what that asks of its children."""

    phase: str
    reason: str
    message: str
    trained: bool = False  # the success policy is met (the evaluator may still run)
    failure: TaskFailure | None = None
    jobs: tuple[JobProgress, ...] = ()
    restarts: int = 0
    restarting: TaskFailure | None = None
    problems: tuple[TaskProblem, ...] = field(default_factory=tuple)

    @property
    def ended(self) -> bool:
        return self.phase in ENDED

    def stopping(self, spec: TFClusterSpec) -> frozenset[str]:
        """The TF jobs whose unfinished Job is suspended now (its running pods deleted):
        under cleanPodPolicy Running or All, every job once the run ended, every job but
        the evaluator once training is over."""
        run = spec.run_policy
        if run is None or run.clean_pod_policy == "None":
            return frozenset()
        if self.ended:
            return frozenset(j.name for j in spec.jobs)
        if self.trained:
            return frozenset(j.name for j in spec.jobs if j.name != EVALUATOR_JOB)
        return frozenset()


def parse_indexes(text: Any) -> frozenset[int]:
    """A Job's ``completedIndexes``: ``"0,2-4"`` -> {0, 2, 3, 4}."""
    found: set[int] = set()
    for part in str(text or "").split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            found.update(range(int(first), int(last or first) + 1))
        except ValueError:
            continue
    return frozenset(found)


def _true(obj: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == kind and cond.get("status") == "True":
            return dict(cond)
    return None


def _job_pods(pods: Sequence[Mapping[str, Any]], job: str) -> list[Mapping[str, Any]]:
    return [
        p for p in pods if ((p.get("metadata") or {}).get("labels") or {}).get(JOB_LABEL) == job
    ]


def _live(pod: Mapping[str, Any]) -> bool:
    meta = pod.get("metadata") or {}
    phase = (pod.get("status") or {}).get("phase")
    return not meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed")


def job_progress(
    spec_job: JobSpec, job: Mapping[str, Any] | None, pods: Sequence[Mapping[str, Any]]
) -> JobProgress:
    own = _job_pods(pods, spec_job.name)
    running = sum(1 for p in own if _live(p) and (p.get("status") or {}).get("phase") == "Running")
    restarts = 0
    if spec_job.restart_policy == "OnFailure":
        restarts = sum(
            int(cs.get("restartCount") or 0)
            for p in own
            if _live(p)
            for cs in (p.get("status") or {}).get("containerStatuses") or []
        )
    if job is None:
        return JobProgress(spec_job.name, spec_job.replicas, running=running, restarts=restarts)
    st = job.get("status") or {}
    failed = int(st.get("failed") or 0)
    failing = _true(job, "Failed") or _true(job, "FailureTarget")
    return JobProgress(
        name=spec_job.name,
        desired=spec_job.replicas,
        active=int(st.get("active") or 0),
        running=running,
        succeeded=int(st.get("succeeded") or 0),
        failed=failed,
        restarts=restarts + failed,
        completed=parse_indexes(st.get("completedIndexes")),
        complete=_true(job, "Complete") is not None,
        failure=(str(failing.get("reason") or "Failed"), str(failing.get("message") or ""))
        if failing
        else None,
        exists=True,
    )


def latest_failure(
    pods: Sequence[Mapping[str, Any]], job: str | None = None, *, nonzero: bool = True
) -> TaskFailure | None:
    """The last task (of ``job``) whose pod failed, from its container's terminated state."""
    found: list[TaskFailure] = []
    for pod in pods if job is None else _job_pods(pods, job):
        st = pod.get("status") or {}
        if st.get("phase") != "Failed":
            continue
        terminated: Mapping[str, Any] = {}
        for cs in st.get("containerStatuses") or []:
            terminated = (cs.get("state") or {}).get("terminated") or {}
            if terminated:
                break
        code = terminated.get("exitCode")
        if nonzero and code == 0:
            continue
        found.append(
            TaskFailure(
                task=task_name(pod).split(" (pod ")[0],
                pod=str((pod.get("metadata") or {}).get("name", "?")),
                exit_code=None if code is None else int(code),
                reason=str(terminated.get("reason") or st.get("reason") or ""),
                message=last_words(terminated.get("message") or st.get("message")),
                finished=str(
                    terminated.get("finishedAt")
                    or (pod.get("metadata") or {}).get("creationTimestamp")
                    or ""
                ),
            )
        )
    return max(found, key=lambda f: f.finished) if found else None


def _trained(spec: TFClusterSpec, jobs: Mapping[str, JobProgress]) -> bool:
    run = spec.run_policy
    if run is None:
        return False
    chief = next((jobs[n] for n in CHIEF_JOBS if n in jobs and jobs[n].desired > 0), None)
    if run.success_policy == "AllWorkers":
        worker = jobs.get("worker")
        workers_done = worker is not None and len(worker.completed) >= worker.desired
        return workers_done and (chief is None or 0 in chief.completed)
    decider = spec.decider()
    return 0 in jobs[decider.job].completed if decider.job in jobs else False


def _failure_reason(spec: TFClusterSpec, job: str, reason: str) -> str:
    if reason == "PodFailurePolicy":
        return TASK_FAILED
    if reason == BACKOFF_LIMIT and spec.job(job).restart_policy == "Never":
        return TASK_FAILED  # a Never job's limit is 0: its first failure
    return reason


def _previous_outcome(previous: Mapping[str, Any]) -> RunOutcome | None:
    phase = previous.get("phase")
    if phase not in ENDED:
        return None
    cond = condition(previous, str(phase)) or {}
    failure = previous.get("failure") or None
    return RunOutcome(
        phase=str(phase),
        reason=str(cond.get("reason") or previous.get("reason") or phase),
        message=str(cond.get("message") or ""),
        trained=phase == PHASE_SUCCEEDED,
        failure=TaskFailure(
            task=str(failure.get("task", "")),
            pod=str(failure.get("pod", "")),
            exit_code=failure.get("exitCode"),
            reason=str(failure.get("reason", "")),
            message=str(failure.get("message", "")),
        )
        if isinstance(failure, Mapping)
        else None,
        restarts=int(previous.get("restarts") or 0),
    )


def decide_run(
    spec: TFClusterSpec,
    jobs: Mapping[str, Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
    previous: Mapping[str, Any],
    *,
    now: datetime | None = None,
    suspended: str | None = None,
) -> RunOutcome:
    """The run's outcome from its Jobs (by Job name) and pods; ``suspended`` is why the run
    may not run now (spec.suspend, waiting for Kueue's admission), if it may not."""
    progress = {
        j.name: job_progress(j, jobs.get(spec.child_name(j.name)), pods)
        for j in spec.jobs
        if j.replicas > 0
    }
    ordered = tuple(progress.values())
    ended = _previous_outcome(previous)
    if ended is not None:
        # The verdict stands; the counts go on describing what is left.
        return RunOutcome(
            ended.phase,
            ended.reason,
            ended.message,
            ended.trained,
            ended.failure,
            ordered,
            ended.restarts,
        )
    run = spec.run_policy
    assert run is not None
    previous_jobs = {j.get("name"): j for j in previous.get("jobs") or []}
    # A failed Job counts every pod it stopped as failed: keep its retries from before.
    restarts = sum(
        int(previous_jobs.get(p.name, {}).get("restarts") or 0) if p.failure else p.restarts
        for p in ordered
    )
    trained = _trained(spec, progress)
    considered = [
        p for p in ordered if not trained or p.name == EVALUATOR_JOB
    ]  # after training only the evaluator can still fail the run
    for p in considered:
        if p.failure is None:
            continue
        reason = _failure_reason(spec, p.name, p.failure[0])
        failure = latest_failure(pods, p.name)
        message = failure.describe() if failure else p.failure[1]
        if reason == DEADLINE:
            message = f"spec.runPolicy.activeDeadlineSeconds ({run.active_deadline_seconds}) passed"
            failure = None
        elif reason == BACKOFF_LIMIT:
            message = (
                f"{p.name}: more than backoffLimit ({run.backoff_limit}) retries; last: "
                f"{message or p.failure[1]}"
            )
        return RunOutcome(PHASE_FAILED, reason, message, trained, failure, ordered, restarts)
    if restarts > run.backoff_limit:
        failure = latest_failure(pods)
        last = f"; last: {failure.describe()}" if failure else ""
        return RunOutcome(
            PHASE_FAILED,
            BACKOFF_LIMIT,
            f"{restarts} retries of failed tasks, more than backoffLimit {run.backoff_limit}{last}",
            trained,
            failure,
            ordered,
            restarts,
        )
    if trained:
        evaluator = progress.get(EVALUATOR_JOB)
        if evaluator is None or evaluator.complete:
            return RunOutcome(
                PHASE_SUCCEEDED,
                "Succeeded",
                _success_message(spec),
                True,
                None,
                ordered,
                restarts,
            )
        return RunOutcome(
            PHASE_RUNNING,
            "WaitingForEvaluator",
            f"{_success_message(spec)}; waiting for the evaluator to finish",
            True,
            None,
            ordered,
            restarts,
        )
    problems = tuple(
        problem
        for pod in pods
        if _live(pod)
        and ((pod.get("metadata") or {}).get("labels") or {}).get(JOB_LABEL) in progress
        for problem in live_pod_problems(pod, now)
    )
    if suspended:
        return RunOutcome(
            PHASE_SUSPENDED,
            suspended,
            _suspended_message(suspended),
            jobs=ordered,
            restarts=restarts,
        )
    before = int(previous.get("restarts") or 0)
    all_running = all(p.exists and p.running + len(p.completed) >= p.desired for p in ordered)
    was_restarting = (condition(previous, "Restarting") or {}).get("status") == "True"
    if restarts > before or (was_restarting and not all_running):
        retried = latest_failure(pods)
        what = retried.describe() if retried else "a task failed"
        return RunOutcome(
            PHASE_RESTARTING,
            "TaskRestarted",
            f"{what}; retried ({restarts} of backoffLimit {run.backoff_limit} retries used)",
            jobs=ordered,
            restarts=restarts,
            restarting=retried,
            problems=problems,
        )
    if all_running:
        return RunOutcome(
            PHASE_RUNNING,
            "AllTasksRunning",
            f"{sum(p.desired for p in ordered)} tasks running or done",
            jobs=ordered,
            restarts=restarts,
            problems=problems,
        )
    blocking = [p for p in problems if p.reason != UNSCHEDULABLE] or list(problems)
    if blocking:
        return RunOutcome(
            PHASE_CREATED,
            blocking[0].reason,
            describe(blocking),
            jobs=ordered,
            restarts=restarts,
            problems=problems,
        )
    waiting = "; ".join(
        f"{p.name}: {p.running + len(p.completed)}/{p.desired} running" for p in ordered
    )
    return RunOutcome(
        PHASE_CREATED, "TasksStarting", f"waiting for {waiting}", jobs=ordered, restarts=restarts
    )


def _success_message(spec: TFClusterSpec) -> str:
    run = spec.run_policy
    if run is not None and run.success_policy == "AllWorkers":
        return "every worker (and the chief) exited 0"
    return f"{spec.decider()} exited 0"


def _suspended_message(reason: str) -> str:
    if reason == "WaitingForAdmission":
        return "waiting for Kueue to admit the run's Workload (every task is suspended)"
    if reason == "Evicted":
        return "Kueue evicted the run's Workload: its tasks are stopped until it is admitted again"
    return "spec.suspend is true: every task is stopped"


def run_status(
    spec: TFClusterSpec,
    outcome: RunOutcome,
    *,
    generation: int,
    previous: Mapping[str, Any],
    now: str,
    endpoint: str,
    cluster_spec: Mapping[str, Any],
    applied: bool = True,
) -> dict[str, Any]:
    """The status of a run from its outcome; ``applied``: this sync made (or found) every
    child the run needs."""
    phase = outcome.phase
    created = (
        applied
        or any(p.exists for p in outcome.jobs)
        or (condition(previous, "Created") or {}).get("status") == "True"
    )
    truth = {
        "Created": created,
        "Running": phase == PHASE_RUNNING,
        "Restarting": phase == PHASE_RESTARTING,
        "Succeeded": phase == PHASE_SUCCEEDED,
        "Failed": phase == PHASE_FAILED,
    }
    conditions = []
    for kind in CONDITIONS:
        if truth[kind] and kind != "Created":
            reason, message = outcome.reason, outcome.message
        elif kind == "Created":
            reason = "JobsCreated" if created else "NotCreated"
            message = (
                f"Indexed Jobs {', '.join(spec.child_name(p.name) for p in outcome.jobs)}"
                if created
                else "no Job created yet"
            )
        else:
            reason, message = _off_reason(kind, phase), ""
        conditions.append(
            make_condition(kind, "True" if truth[kind] else "False", reason, message, generation)
        )
    desired = sum(p.desired for p in outcome.jobs)
    ready = sum(min(p.running + len(p.completed), p.desired) for p in outcome.jobs)
    status: dict[str, Any] = {
        "phase": phase,
        "reason": outcome.reason,
        "observedGeneration": generation,
        "endpoint": endpoint,
        "clientTask": str(spec.client),
        "clusterSpec": dict(cluster_spec),
        "readyTasks": ready,
        "desiredTasks": desired,
        "ready": ", ".join(
            f"{p.name} {min(p.running + len(p.completed), p.desired)}/{p.desired}"
            for p in outcome.jobs
        ),
        "restarts": outcome.restarts,
        "jobs": [p.as_dict() for p in outcome.jobs],
        "conditions": carry_transition_times(conditions, previous, now),
    }
    start = previous.get("startTime")
    if start is None and created and phase != PHASE_SUSPENDED:
        start = now
    if start is not None:
        status["startTime"] = start
    if outcome.ended:
        status["completionTime"] = previous.get("completionTime") or now
    failure = outcome.failure if phase == PHASE_FAILED else None
    if failure is not None:
        status["failure"] = failure.as_dict()
    return status


def _off_reason(kind: str, phase: str) -> str:
    if phase in ENDED or phase == PHASE_SUSPENDED:
        return phase
    return {"Running": "NotAllRunning", "Restarting": "NoRestart"}.get(kind, "NotFinished")


def ttl_due(spec: TFClusterSpec, status: Mapping[str, Any]) -> datetime | None:
    """When a finished run is deleted (spec.runPolicy.ttlSecondsAfterFinished)."""
    run = spec.run_policy
    if run is None or run.ttl_seconds_after_finished is None:
        return None
    if status.get("phase") not in ENDED:
        return None
    finished = parse_time(status.get("completionTime"))
    if finished is None:
        return None
    return finished + timedelta(seconds=run.ttl_seconds_after_finished)


__all__ = [
    "RunOutcome",
    "TaskFailure",
    "decide_run",
    "parse_indexes",
    "run_status",
    "ttl_due",
]
