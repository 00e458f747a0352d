"""A run to completion (spec.runPolicy): one Indexed Job per TF job, beside its headless
Service, as JobSet does. Pod ``<child>-<i>`` gets the hostname ``<child>-<i>`` in the
Service's subdomain, so the task addresses are the StatefulSets' (``<child>-<i>.<child>.<ns>
.svc``) and TF_CONFIG is the same in both modes.

The Job controller creates and replaces the pods, honours the deadline and fails a Job as
its policy says; the operator decides the run from the Jobs (run_status.py). The restart
policy of a TF job becomes:

- ``Never``: any failure fails the run (a pod evicted, preempted or deleted from an
  unreachable node — the ``DisruptionTarget`` condition — is replaced and not counted);
- ``ExitCode``: exit codes 1-127 (the program's own error) fail the run at once; 128 and up
  (killed by a signal: SIGKILL/OOM 137, SIGTERM 143) are retried, counted against
  backoffLimit; disruptions as above;
- ``OnFailure``: the kubelet restarts the container in place; restarts are counted.
"""

from __future__ import annotations

from typing import Any

from ..spec import JobSpec, TFClusterSpec
from .meta import JOB_INDEX_LABEL, OwnerRef, job_labels, object_meta
from .pods import CONTAINER_NAME, pod_template

# The exit codes of a program's own error: 1-127 (128 + n is "killed by signal n").
PERMANENT_EXIT_CODES = list(range(1, 128))


def job_backoff_limit(spec: TFClusterSpec, job: JobSpec) -> int:
    """The Job's own limit: the Job controller fails it first when its failures alone pass
    the run's backoffLimit (the operator counts every job's together)."""
    limit = spec.run_policy.backoff_limit if spec.run_policy else 0
    if job.restart_policy == "Never":
        return 0
    if job.restart_policy == "OnFailure":
        # The Job controller fails an OnFailure Job at restarts >= backoffLimit, a Never one
        # at failures > backoffLimit: one more keeps both at "more than backoffLimit".
        return limit + 1
    return limit


def pod_failure_policy(job: JobSpec) -> dict[str, Any] | None:
    if job.restart_policy == "OnFailure":
        return None  # the Job API allows a podFailurePolicy only with restartPolicy Never
    disruption = {
        "action": "Ignore",
        "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}],
    }
    if job.restart_policy == "Never":
        failing = {"operator": "NotIn", "values": [0]}
    else:
        failing = {"operator": "In", "values": PERMANENT_EXIT_CODES}
    return {
        "rules": [
            disruption,
            {"action": "FailJob", "onExitCodes": {"containerName": CONTAINER_NAME, **failing}},
        ]
    }


def indexed_job(
    spec: TFClusterSpec,
    job: JobSpec,
    owner: OwnerRef,
    cluster_domain: str = "",
    *,
    suspend: bool = False,
) -> dict[str, Any]:
    """The Indexed Job of ``job``: ``replicas`` tasks, one pod each, all at once."""
    run = spec.run_policy
    child = spec.child_name(job.name)
    body: dict[str, Any] = {
        "completionMode": "Indexed",
        "completions": job.replicas,
        "parallelism": job.replicas,
        "backoffLimit": job_backoff_limit(spec, job),
        # A task's address is its hostname: never two pods of one task at once.
        "podReplacementPolicy": "Failed",
        "suspend": suspend,
        "template": pod_template(
            spec,
            job,
            cluster_domain,
            JOB_INDEX_LABEL,
            extra_spec={
                "restartPolicy": "OnFailure" if job.restart_policy == "OnFailure" else "Never",
                "subdomain": child,
            },
        ),
    }
    policy = pod_failure_policy(job)
    if policy is not None:
        body["podFailurePolicy"] = policy
    if run is not None and run.active_deadline_seconds is not None:
        body["activeDeadlineSeconds"] = run.active_deadline_seconds
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": object_meta(spec, child, job_labels(spec, job.name), owner),
        "spec": body,
    }
