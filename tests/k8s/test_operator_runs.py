"""Runs to completion (spec.runPolicy) against the real API server: the operator's Indexed
Jobs are run by the real Job controller (kube-controller-manager), which creates, replaces
and fails their pods; no kubelet runs, so the tests play it, writing each pod's phase and its
container's terminated state (exit code, reason) as the kubelet would."""

from __future__ import annotations

import time

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
from kubernetes import client  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.operator_on_k8s import (  # noqa: E402
    GROUP,
    PLURAL,
    VERSION,
    Operator,
    condition,
    wait_for,
)
from support.operator_runs import JOB_INDEX, Run, container_status, phase, run_spec, started  # noqa: E402

pytestmark = pytest.mark.k8s

# ---------------------------------------------------------------------- the children


def test_a_run_is_indexed_jobs_whose_pods_keep_the_task_addresses(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = Run(k8s_api_client, cluster_ns)
    run.create(run_spec(backoffLimit=2, activeDeadlineSeconds=3600))
    worker = wait_for("the worker Job", lambda: run.job("worker"))
    spec = worker.spec
    assert (spec.completion_mode, spec.completions, spec.parallelism) == ("Indexed", 2, 2)
    assert spec.backoff_limit == 2 and spec.active_deadline_seconds == 3600
    assert spec.template.spec.subdomain == "run-worker"
    assert spec.template.spec.restart_policy == "Never"
    rules = spec.pod_failure_policy.rules
    assert rules[0].action == "Ignore" and rules[0].on_pod_conditions[0].type == "DisruptionTarget"
    assert rules[1].action == "FailJob"
    assert rules[1].on_exit_codes.operator == "In" and rules[1].on_exit_codes.values[-1] == 127
    container = spec.template.spec.containers[0]
    assert container.command == ["python", "/app/train.py"]
    assert container.args == ["--steps=100"] and container.working_dir == "/app"
    assert container.readiness_probe is None  # a program need not serve gRPC health
    assert run.service("run-worker").spec.cluster_ip == "None"
    pods = wait_for("3 pods", lambda: run.pods_if(3))
    for pod in pods:
        # The Job controller names the host <job>-<index>: the StatefulSets' addresses.
        index = pod.metadata.labels[JOB_INDEX]
        job = pod.metadata.labels["tfcluster.dev/job"]
        assert pod.spec.hostname == f"run-{job}-{index}"
        assert pod.spec.subdomain == f"run-{job}"
    status = run.wait_status("Created", phase("Created"))
    assert status["clusterSpec"]["worker"] == [
        f"run-worker-{i}.run-worker.{cluster_ns}.svc:2222" for i in range(2)
    ]
    assert condition(status, "Created")["status"] == "True"
    assert run.service("run-client").spec.selector[JOB_INDEX] == "0"


# ---------------------------------------------------------------------- success


def test_worker_0_exiting_0_succeeds_and_the_ps_goes_per_clean_pod_policy(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(k8s_api_client, cluster_ns, run_spec())
    running = run.status()
    assert running["startTime"] and condition(running, "Running")["status"] == "True"
    run.exit("worker", 0, 0)
    status = run.wait_status("Succeeded", phase("Succeeded"))
    assert condition(status, "Succeeded")["reason"] == "Succeeded"
    assert "/job:worker/task:0 exited 0" in condition(status, "Succeeded")["message"]
    assert status["completionTime"] >= status["startTime"]
    # cleanPodPolicy Running: the ps and worker 1 are stopped (their Jobs suspended).
    wait_for("the ps Job suspended", lambda: run.job("ps").spec.suspend is True, 30)
    wait_for(
        "the running pods gone",
        lambda: not [p for p in run.pods() if p.status.phase == "Running"],
        60,
    )
    # The finished worker stays, for its logs.
    assert any(p.status.phase == "Succeeded" for p in run.pods("worker"))
    assert any(e.reason == "PhaseSucceeded" for e in run.events())


def test_the_evaluator_is_not_stopped_when_training_ends(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    body = run_spec()
    body["spec"]["jobs"].append(
        {"name": "evaluator", "replicas": 1, "command": ["python", "eval.py"]}
    )
    run = Run(k8s_api_client, cluster_ns)
    run.create(body)
    wait_for("4 pods", lambda: run.pods_if(4), 60)
    run.drive("Running", phase("Running"))
    run.exit("worker", 0, 0)
    status = run.wait_status(
        "waiting for the evaluator", lambda s: s.get("reason") == "WaitingForEvaluator"
    )
    assert status["phase"] == "Running"
    wait_for("the ps stopped", lambda: not run.pods("ps"), 60)
    assert run.task_pod("evaluator", 0) is not None and run.job("evaluator").spec.suspend is False
    run.exit("evaluator", 0, 0)
    run.wait_status("Succeeded", phase("Succeeded"))


# ---------------------------------------------------------------------- failure


def test_a_worker_exiting_1_under_exit_code_fails_the_run_with_its_exit_code(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(k8s_api_client, cluster_ns, run_spec())
    pod = run.exit("worker", 1, 1, message="Traceback ...\nValueError: bad input shape")
    status = run.wait_status("Failed", phase("Failed"))
    failed = condition(status, "Failed")
    assert failed["reason"] == "TaskFailed"
    assert status["failure"] == {
        "task": "/job:worker/task:1",
        "pod": pod,
        "exitCode": 1,
        "reason": "Error",
        "message": "ValueError: bad input shape",
    }
    assert "exit code 1" in failed["message"] and pod in failed["message"]
    assert status["completionTime"]
    wait_for("the ps stopped", lambda: not run.pods("ps"), 60)
    # The operator posts its events from a background queue: the warning follows the status.
    wait_for(
        "a TaskFailed warning",
        lambda: any(e.reason == "TaskFailed" and e.type == "Warning" for e in run.events()),
        30,
    )


def test_a_task_killed_by_sigkill_is_retried_and_counted(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(k8s_api_client, cluster_ns, run_spec(backoffLimit=3))
    run.exit("worker", 1, 137, reason="OOMKilled")
    status = run.wait_status("Restarting", phase("Restarting"))
    assert status["restarts"] == 1
    assert "exit code 137" in condition(status, "Restarting")["message"]
    # The Job controller replaces the pod (after its back-off); the run runs again.
    status = run.drive("Running again", phase("Running"), 120)
    assert status["restarts"] == 1 and condition(status, "Restarting")["status"] == "False"
    assert run.job("worker").status.failed == 1


def test_an_evicted_pod_is_replaced_without_counting(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(k8s_api_client, cluster_ns, run_spec(backoffLimit=0))
    pod = run.task_pod("worker", 1)
    # The eviction API marks the pod DisruptionTarget and deletes it; the kubelet kills it.
    run.core.create_namespaced_pod_eviction(
        pod.metadata.name,
        cluster_ns,
        {"metadata": {"name": pod.metadata.name, "namespace": cluster_ns}},
    )
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    current = run.core.read_namespaced_pod_status(pod.metadata.name, cluster_ns)
    conditions = [
        c.to_dict() for c in current.status.conditions or [] if c.type == "DisruptionTarget"
    ]
    assert conditions, "the eviction API did not mark the pod"
    terminated = {"exitCode": 137, "reason": "Error", "startedAt": stamp, "finishedAt": stamp}
    run.core.patch_namespaced_pod_status(
        pod.metadata.name,
        cluster_ns,
        {
            "status": {
                "phase": "Failed",
                "containerStatuses": [container_status({"terminated": terminated})],
            }
        },
    )
    wait_for(
        "a new pod for worker 1",
        lambda: (
            (p := run.task_pod("worker", 1)) is not None and p.metadata.name != pod.metadata.name
        ),
        60,
    )
    status = run.drive("Running again", phase("Running"))
    assert status["restarts"] == 0 and run.job("worker").status.failed in (0, None)


def test_retries_of_all_jobs_together_pass_the_backoff_limit(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(k8s_api_client, cluster_ns, run_spec(backoffLimit=1))
    run.exit("ps", 0, 137)
    run.wait_status("one retry", lambda s: s.get("restarts") == 1)
    run.exit("worker", 0, 143)
    status = run.wait_status("Failed", phase("Failed"))
    assert condition(status, "Failed")["reason"] == "BackoffLimitExceeded"
    assert "more than backoffLimit 1" in condition(status, "Failed")["message"]
    assert status["failure"]["exitCode"] in (137, 143)


def test_the_deadline_fails_the_run(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(k8s_api_client, cluster_ns, run_spec(activeDeadlineSeconds=3))
    status = run.wait_status("Failed", phase("Failed"), 60)
    failed = condition(status, "Failed")
    assert failed["reason"] == "DeadlineExceeded"
    assert "activeDeadlineSeconds (3)" in failed["message"]


# ---------------------------------------------------------------------- the end


def test_ttl_deletes_a_finished_run_and_clean_pod_policy_all_its_jobs(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = started(
        k8s_api_client, cluster_ns, run_spec(cleanPodPolicy="All", ttlSecondsAfterFinished=5)
    )
    uid = run.get()["metadata"]["uid"]
    run.exit("worker", 0, 0)
    run.wait_status("Succeeded", phase("Succeeded"))
    wait_for("the Jobs deleted", lambda: run.job("ps") is None and run.job("worker") is None, 30)

    def gone() -> bool:
        try:
            return bool(run.get()["metadata"]["uid"] != uid)
        except ApiException as err:
            return err.status == 404

    wait_for("the TFCluster deleted after its TTL", gone, 30)


def test_a_runs_jobs_cannot_change_once_created(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    run = Run(k8s_api_client, cluster_ns)
    run.create(run_spec())
    with pytest.raises(ApiException) as refused:
        run.patch_spec({"jobs": [{"name": "worker", "replicas": 3, "command": ["x"]}]})
    assert refused.value.status == 422 and "cannot change once created" in str(refused.value.body)
    run.custom.patch_namespaced_custom_object(
        GROUP, VERSION, cluster_ns, PLURAL, "run", {"spec": {"suspend": True}}
    )
    run.wait_status("Suspended", phase("Suspended"))
    wait_for("the Jobs suspended", lambda: run.job("worker").spec.suspend is True, 30)


@pytest.mark.parametrize("name", ["tfcluster-run.yaml", "tfcluster-run-tensorflow.yaml"])
def test_the_run_examples_are_accepted_by_the_api_server(
    installed: ApiClient, k8s_namespace: str, name: str
) -> None:
    from kubernetes import utils
    from support.operator_on_k8s import MANIFESTS, load_yaml

    for doc in load_yaml(MANIFESTS / "examples" / name):
        doc["metadata"]["namespace"] = k8s_namespace
        if doc["kind"] == "TFCluster":
            client.CustomObjectsApi(installed).create_namespaced_custom_object(
                GROUP, VERSION, k8s_namespace, PLURAL, doc, dry_run="All"
            )
        else:
            utils.create_from_dict(installed, doc, dry_run="All")
