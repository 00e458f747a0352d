"""Runs to completion without a cluster: the spec's run fields, the Indexed Jobs, PodGroups,
the Workload and budgets the builders make, and the verdict decide_run reaches from Jobs and
pods as the Job controller and the kubelet leave them (tests/k8s/test_operator_runs.py runs
the same against the real Job controller)."""

from __future__ import annotations

from typing import Any

import pytest
from support.operator_manifests import container_env
from tfcluster_operator.builders import (
    OwnerRef,
    client_service,
    disruption_budget,
    indexed_job,
    podgroup,
    statefulset,
    workload,
)
from tfcluster_operator.builders.meta import JOB_INDEX_LABEL
from tfcluster_operator.run_status import decide_run, parse_indexes, run_status, ttl_due
from tfcluster_operator.spec import SpecError, TFClusterSpec, parse_spec

OWNER = OwnerRef(name="run", uid="uid-1")
PROGRAM = {"command": ["python", "train.py"], "args": ["--steps=10"]}


def make(
    run_policy: dict[str, Any] | None = None,
    jobs: list[dict[str, Any]] | None = None,
    labels: dict[str, str] | None = None,
    **extra: Any,
) -> TFClusterSpec:
    spec: dict[str, Any] = {
        "jobs": jobs or [{"name": "ps", **PROGRAM}, {"name": "worker", "replicas": 2, **PROGRAM}],
        **extra,
    }
    if run_policy is not None:
        spec["runPolicy"] = run_policy
    return parse_spec("run", "team", spec, default_image="img:1", labels=labels)


# ------------------------------------------------------------------ the spec


def test_run_policy_defaults_are_tfjobs() -> None:
    run = make({}).run_policy
    assert run is not None
    assert (run.success_policy, run.clean_pod_policy, run.backoff_limit) == (
        "ChiefOrWorker0",
        "Running",
        6,
    )
    assert make({}).job("worker").restart_policy == "ExitCode"


@pytest.mark.parametrize(
    ("run_policy", "jobs", "reason", "words"),
    [
        ({}, [{"name": "ps"}, {"name": "evaluator"}], "NoSuccessTask", "no job decides success"),
        (
            {"successPolicy": "AllWorkers"},
            [{"name": "chief"}],
            "NoSuccessTask",
            "AllWorkers needs a 'worker' job",
        ),
        ({"cleanPodPolicy": "Some"}, None, "InvalidSpec", "cleanPodPolicy 'Some'"),
        (None, [{"name": "worker", "restartPolicy": "Never"}], "InvalidSpec", "always restart"),
        ({}, [{"name": "worker", "restartPolicy": "Always"}], "InvalidSpec", "restartPolicy"),
        ({}, [{"name": "worker", "command": "python x.py"}], "InvalidSpec", "list of strings"),
    ],
)
def test_specs_a_run_cannot_have_say_what_to_change(
    run_policy: dict[str, Any] | None, jobs: Any, reason: str, words: str
) -> None:
    with pytest.raises(SpecError) as err:
        make(run_policy, jobs)
    assert err.value.reason == reason and words in err.value.message


def test_only_a_run_can_be_queued_in_kueue() -> None:
    with pytest.raises(SpecError, match="only a run"):
        make(None, labels={"kueue.x-k8s.io/queue-name": "q"})
    assert make({}, labels={"kueue.x-k8s.io/queue-name": "q"}).queue_name == "q"


# ------------------------------------------------------------------ the children


def test_an_indexed_job_per_job_whose_tasks_keep_their_addresses() -> None:
    spec = make({"backoffLimit": 4, "activeDeadlineSeconds": 600})
    job = indexed_job(spec, spec.job("worker"), OWNER)
    body = job["spec"]
    assert (job["kind"], job["metadata"]["name"]) == ("Job", "run-worker")
    assert (body["completionMode"], body["completions"], body["parallelism"]) == ("Indexed", 2, 2)
    assert (body["backoffLimit"], body["activeDeadlineSeconds"]) == (4, 600)
    assert body["podReplacementPolicy"] == "Failed"
    pod = body["template"]["spec"]
    assert (pod["restartPolicy"], pod["subdomain"]) == ("Never", "run-worker")
    container = pod["containers"][0]
    assert (container["command"], container["args"]) == (["python", "train.py"], ["--steps=10"])
    assert "readinessProbe" not in container
    env = container_env(container["env"], {JOB_INDEX_LABEL: "1"})
    assert '"index": 1' in env["TF_CONFIG"] and '"type": "worker"' in env["TF_CONFIG"]
    assert "run-worker-1.run-worker.team.svc:2222" in env["TF_CONFIG"]


@pytest.mark.parametrize(
    ("policy", "limit", "rules"),
    [
        ("ExitCode", 6, [("Ignore", None), ("FailJob", ("In", 1, 127))]),
        ("Never", 0, [("Ignore", None), ("FailJob", ("NotIn", 0, 0))]),
        ("OnFailure", 7, None),
    ],
)
def test_restart_policies_become_the_job_controllers_rules(
    policy: str, limit: int, rules: list[Any] | None
) -> None:
    spec = make({}, [{"name": "worker", "restartPolicy": policy, **PROGRAM}])
    body = indexed_job(spec, spec.job("worker"), OWNER)["spec"]
    assert body["backoffLimit"] == limit
    restart = body["template"]["spec"]["restartPolicy"]
    assert restart == ("OnFailure" if policy == "OnFailure" else "Never")
    if rules is None:
        assert "podFailurePolicy" not in body
        return
    found = body["podFailurePolicy"]["rules"]
    assert [r["action"] for r in found] == [r[0] for r in rules]
    assert found[0]["onPodConditions"] == [{"type": "DisruptionTarget", "status": "True"}]
    codes = found[1]["onExitCodes"]
    assert (codes["operator"], codes["values"][0], codes["values"][-1]) == rules[1][1]
    assert codes["containerName"] == "tfcluster-server"


def test_the_client_service_selects_task_0_by_its_completion_index() -> None:
    svc = client_service(make({}), OWNER)
    assert svc["spec"]["selector"][JOB_INDEX_LABEL] == "0"


def test_a_program_replaces_the_server_in_a_long_running_cluster_too() -> None:
    spec = make(None, [{"name": "worker", "args": ["--x"], "workingDir": "/w", "image": "tf:1"}])
    container = statefulset(spec, spec.job("worker"), OWNER)["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert "command" not in container  # the image's entrypoint, with these args
    assert (container["args"], container["workingDir"], container["image"]) == (
        ["--x"],
        "/w",
        "tf:1",
    )


def test_gang_podgroups_and_the_marks_their_schedulers_read() -> None:
    spec = make({}, scheduling={"gang": "Volcano", "queue": "q", "priorityClassName": "high"})
    group = podgroup(spec, OWNER)
    assert group is not None
    assert group["apiVersion"] == "scheduling.volcano.sh/v1beta1"
    assert group["spec"] == {"minMember": 3, "queue": "q", "priorityClassName": "high"}
    pod = indexed_job(spec, spec.job("ps"), OWNER)["spec"]["template"]
    assert pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == "run"
    assert (pod["spec"]["schedulerName"], pod["spec"]["priorityClassName"]) == ("volcano", "high")
    spec = make({}, scheduling={"gang": "Coscheduling", "scheduleTimeoutSeconds": 30})
    group = podgroup(spec, OWNER)
    assert group is not None and group["apiVersion"] == "scheduling.x-k8s.io/v1alpha1"
    assert group["spec"] == {"minMember": 3, "scheduleTimeoutSeconds": 30}
    pod = indexed_job(spec, spec.job("ps"), OWNER)["spec"]["template"]
    assert pod["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] == "run"
    assert pod["spec"]["schedulerName"] == "scheduler-plugins-scheduler"
    assert podgroup(make({}), OWNER) is None


def test_the_workload_has_a_pod_set_per_job_with_the_jobs_template() -> None:
    spec = make({}, labels={"kueue.x-k8s.io/queue-name": "team"})
    found = workload(spec, OWNER)
    assert found is not None
    assert found["spec"]["queueName"] == "team"
    assert [(s["name"], s["count"]) for s in found["spec"]["podSets"]] == [("ps", 1), ("worker", 2)]
    job = indexed_job(spec, spec.job("worker"), OWNER)
    assert found["spec"]["podSets"][1]["template"] == job["spec"]["template"]
    assert workload(make({}), OWNER) is None


def test_a_budget_only_for_the_jobs_that_ask() -> None:
    spec = make(
        None,
        [{"name": "ps", "podDisruptionBudget": {"maxUnavailable": 0}}, {"name": "worker"}],
    )
    budget = disruption_budget(spec, spec.job("ps"), OWNER)
    assert budget is not None and budget["spec"]["maxUnavailable"] == 0
    assert budget["spec"]["selector"]["matchLabels"]["tfcluster.dev/job"] == "ps"
    assert disruption_budget(spec, spec.job("worker"), OWNER) is None


# ------------------------------------------------------------------ the verdict


def job(name: str, **status: Any) -> dict[str, Any]:
    conditions = status.pop("conditions", [])
    return {
        "metadata": {"name": f"run-{name}"},
        "status": {**status, "conditions": conditions},
    }


def cond(kind: str, reason: str = "", message: str = "") -> dict[str, Any]:
    return {"type": kind, "status": "True", "reason": reason, "message": message}


def pod(job_name: str, index: int, phase: str, code: int | None = None, **extra: Any) -> dict:
    status: dict[str, Any] = {"phase": phase}
    if code is not None:
        status["containerStatuses"] = [
            {
                "name": "tfcluster-server",
                "restartCount": 0,
                "state": {
                    "terminated": {
                        "exitCode": code,
                        "reason": extra.get("reason", "Error"),
                        "message": extra.get("message", ""),
                        "finishedAt": extra.get("finished", "2026-01-01T00:00:00Z"),
                    }
                },
            }
        ]
    return {
        "metadata": {
            "name": f"run-{job_name}-{index}-abcde",
            "labels": {"tfcluster.dev/job": job_name, JOB_INDEX_LABEL: str(index)},
        },
        "status": status,
    }


RUNNING = [pod("ps", 0, "Running"), pod("worker", 0, "Running"), pod("worker", 1, "Running")]


def decide(jobs: list[dict[str, Any]], pods: list[dict[str, Any]], **kw: Any) -> Any:
    spec = kw.pop("spec", None) or make({"backoffLimit": 2})
    by_name = {j["metadata"]["name"]: j for j in jobs}
    return decide_run(spec, by_name, pods, kw.pop("previous", {}), **kw)


def test_parse_completed_indexes() -> None:
    assert parse_indexes("0,2-4,7") == {0, 2, 3, 4, 7}
    assert parse_indexes("") == frozenset()


def test_all_tasks_running_is_running() -> None:
    outcome = decide([job("ps", active=1), job("worker", active=2)], RUNNING)
    assert (outcome.phase, outcome.reason) == ("Running", "AllTasksRunning")


def test_worker_0_done_succeeds_and_stops_the_rest() -> None:
    spec = make({})
    outcome = decide(
        [job("ps", active=1), job("worker", active=1, succeeded=1, completedIndexes="0")],
        [pod("ps", 0, "Running"), pod("worker", 0, "Succeeded", 0), pod("worker", 1, "Running")],
        spec=spec,
    )
    assert (outcome.phase, outcome.message) == ("Succeeded", "/job:worker/task:0 exited 0")
    assert outcome.stopping(spec) == {"ps", "worker"}


def test_all_workers_waits_for_every_worker() -> None:
    spec = make({"successPolicy": "AllWorkers"})
    jobs = [job("ps", active=1), job("worker", active=1, succeeded=1, completedIndexes="0")]
    assert decide(jobs, RUNNING, spec=spec).phase == "Running"
    jobs[1] = job("worker", succeeded=2, completedIndexes="0-1")
    assert decide(jobs, RUNNING, spec=spec).phase == "Succeeded"


def test_the_evaluator_keeps_running_after_training() -> None:
    spec = make({}, [{"name": "ps"}, {"name": "worker"}, {"name": "evaluator"}])
    jobs = [job("ps", active=1), job("worker", completedIndexes="0"), job("evaluator", active=1)]
    outcome = decide(jobs, [], spec=spec)
    assert (outcome.phase, outcome.reason) == ("Running", "WaitingForEvaluator")
    assert outcome.stopping(spec) == {"ps", "worker"}
    jobs[2] = job("evaluator", completedIndexes="0", conditions=[cond("Complete")])
    assert decide(jobs, [], spec=spec).phase == "Succeeded"


def test_a_task_failure_names_the_task_its_exit_code_and_last_words() -> None:
    failed = pod("worker", 1, "Failed", 1, message="Traceback\nValueError: shapes")
    outcome = decide(
        [
            job("ps", active=1),
            job(
                "worker", active=1, failed=1, conditions=[cond("FailureTarget", "PodFailurePolicy")]
            ),
        ],
        [*RUNNING[:2], failed],
    )
    assert (outcome.phase, outcome.reason) == ("Failed", "TaskFailed")
    assert outcome.failure is not None
    assert outcome.failure.as_dict() == {
        "task": "/job:worker/task:1",
        "pod": "run-worker-1-abcde",
        "exitCode": 1,
        "reason": "Error",
        "message": "ValueError: shapes",
    }
    assert "failed with exit code 1 (Error): ValueError: shapes" in outcome.message


def test_retries_restart_then_pass_the_backoff_limit_across_jobs() -> None:
    killed = pod("worker", 1, "Failed", 137, reason="OOMKilled")
    outcome = decide([job("ps", active=1), job("worker", active=2, failed=1)], [*RUNNING, killed])
    assert (outcome.phase, outcome.restarts) == ("Restarting", 1)
    assert outcome.restarting is not None and outcome.restarting.exit_code == 137
    status = {"restarts": 1, "conditions": [{"type": "Restarting", "status": "True"}]}
    # Running again once every task runs.
    again = decide(
        [job("ps", active=1), job("worker", active=2, failed=1)], RUNNING, previous=status
    )
    assert again.phase == "Running"
    # ps and worker retries together: 3 > backoffLimit 2.
    over = decide([job("ps", active=1, failed=1), job("worker", active=2, failed=2)], [killed])
    assert (over.phase, over.reason, over.restarts) == ("Failed", "BackoffLimitExceeded", 3)
    assert "more than backoffLimit 2" in over.message


def test_the_deadline_and_the_job_controllers_backoff() -> None:
    deadline = decide(
        [job("ps", conditions=[cond("Failed", "DeadlineExceeded")]), job("worker", active=2)], []
    )
    assert (deadline.phase, deadline.reason) == ("Failed", "DeadlineExceeded")
    spec = make({}, [{"name": "worker", "restartPolicy": "Never"}])
    never = decide(
        [job("worker", failed=1, conditions=[cond("Failed", "BackoffLimitExceeded")])],
        [pod("worker", 0, "Failed", 2)],
        spec=spec,
    )
    assert (never.reason, never.failure.exit_code if never.failure else None) == ("TaskFailed", 2)


def test_onfailure_restarts_in_place_count() -> None:
    spec = make({"backoffLimit": 1}, [{"name": "worker", "restartPolicy": "OnFailure"}])
    restarted = pod("worker", 0, "Running")
    restarted["status"]["containerStatuses"] = [{"name": "tfcluster-server", "restartCount": 2}]
    outcome = decide([job("worker", active=1)], [restarted], spec=spec)
    assert (outcome.phase, outcome.reason, outcome.restarts) == (
        "Failed",
        "BackoffLimitExceeded",
        2,
    )


def test_a_verdict_stands_when_the_jobs_are_gone() -> None:
    spec = make({"ttlSecondsAfterFinished": 60})
    failed = decide(
        [job("ps", active=1), job("worker", conditions=[cond("Failed", "PodFailurePolicy")])],
        [pod("worker", 1, "Failed", 3)],
        spec=spec,
    )
    status = run_status(
        spec,
        failed,
        generation=1,
        previous={},
        now="2026-01-01T00:00:10Z",
        endpoint="grpc://x",
        cluster_spec={},
    )
    assert status["phase"] == "Failed" and status["completionTime"] == "2026-01-01T00:00:10Z"
    assert status["failure"]["exitCode"] == 3
    later = decide([], [], spec=spec, previous=status)
    assert (later.phase, later.reason) == ("Failed", "TaskFailed")
    again = run_status(
        spec,
        later,
        generation=1,
        previous=status,
        now="2026-01-01T00:05:00Z",
        endpoint="grpc://x",
        cluster_spec={},
    )
    assert again["completionTime"] == "2026-01-01T00:00:10Z"
    assert again["failure"] == status["failure"]
    due = ttl_due(spec, again)
    assert due is not None and due.isoformat() == "2026-01-01T00:01:10+00:00"


def test_conditions_are_tfjobs_with_start_and_completion_times() -> None:
    spec = make({})
    outcome = decide([job("ps", active=1), job("worker", active=2)], RUNNING, spec=spec)
    status = run_status(
        spec,
        outcome,
        generation=3,
        previous={},
        now="2026-01-01T00:00:00Z",
        endpoint="grpc://x",
        cluster_spec={},
    )
    truth = {c["type"]: c["status"] for c in status["conditions"]}
    assert truth == {
        "Created": "True",
        "Running": "True",
        "Restarting": "False",
        "Succeeded": "False",
        "Failed": "False",
    }
    assert status["startTime"] == "2026-01-01T00:00:00Z" and "completionTime" not in status
    assert status["ready"] == "ps 1/1, worker 2/2"


def test_a_suspended_run_says_why() -> None:
    outcome = decide([job("ps"), job("worker")], [], suspended="WaitingForAdmission")
    assert (outcome.phase, outcome.reason) == ("Suspended", "WaitingForAdmission")
    assert "Kueue" in outcome.message


@pytest.mark.parametrize("name", ["tfcluster-run.yaml", "tfcluster-run-tensorflow.yaml"])
def test_the_run_examples_parse_and_build(name: str) -> None:
    import yaml
    from support.operator_on_k8s import MANIFESTS

    docs = list(yaml.safe_load_all((MANIFESTS / "examples" / name).read_text()))
    (doc,) = [d for d in docs if d["kind"] == "TFCluster"]
    meta = doc["metadata"]
    spec = parse_spec(meta["name"], "ns", doc["spec"], default_image="x", labels=meta.get("labels"))
    assert spec.runs_to_completion and [j.name for j in spec.jobs] == ["ps", "worker"]
    worker = indexed_job(spec, spec.job("worker"), OWNER)
    mounts = worker["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    assert mounts and worker["spec"]["template"]["spec"]["volumes"]
