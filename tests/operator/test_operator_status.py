"""status.compute_status from children, the merge patch, the operator's metrics, config."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from tfcluster_operator.config import ConfigError, OperatorConfig
from tfcluster_operator.metrics import OperatorMetrics
from tfcluster_operator.reconcile import merge_patch
from tfcluster_operator.spec import SpecError, parse_spec
from tfcluster_operator.status import (
    RESTART_THRESHOLD,
    compute_status,
    condition,
    invalid_status,
)

T0, T1 = "2024-01-01T00:00:00Z", "2024-01-01T00:05:00Z"


def spec(**extra: Any) -> Any:
    body = {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 2}], **extra}
    return parse_spec("demo", "team", body, default_image="img:1")


def sts(
    job: str, replicas: int, ready: int, *, updated: int | None = None, rolled: bool = True
) -> dict[str, Any]:
    updated = replicas if updated is None else updated
    return {
        "metadata": {"name": f"demo-{job}", "generation": 2},
        "status": {
            "observedGeneration": 2,
            "replicas": replicas,
            "readyReplicas": ready,
            "updatedReplicas": updated,
            "currentRevision": "a",
            "updateRevision": "a" if rolled else "b",
        },
    }


def pod(
    job: str,
    i: int,
    restarts: int = 0,
    waiting: str | None = None,
    *,
    terminated: dict[str, Any] | None = None,
    last: dict[str, Any] | None = None,
    ready: bool | None = None,
    scheduled: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """A task pod as the kubelet reports it: ``terminated`` is the current state (between a
    crash and its restart), ``last`` the previous run's end."""
    if terminated is not None:
        state: dict[str, Any] = {"terminated": terminated}
    elif waiting:
        state = {"waiting": {"reason": waiting}}
    else:
        state = {"running": {"startedAt": T0}}
    cs: dict[str, Any] = {
        "restartCount": restarts,
        "state": state,
        "ready": (not waiting and terminated is None) if ready is None else ready,
    }
    if last is not None:
        cs["lastState"] = {"terminated": last}
    status: dict[str, Any] = {"phase": "Running", "containerStatuses": [cs]}
    if scheduled is not None:
        status = {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": scheduled[0],
                    "message": scheduled[1],
                }
            ],
        }
    return {
        "metadata": {
            "name": f"demo-{job}-{i}",
            "labels": {"tfcluster.dev/job": job, "apps.kubernetes.io/pod-index": str(i)},
        },
        "status": status,
    }


def crashed(code: int = 1, message: str = "", finished: str = T0) -> dict[str, Any]:
    return {"exitCode": code, "reason": "Error", "message": message, "finishedAt": finished}


def conds(status: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in status["conditions"]}


def test_all_ready_is_running() -> None:
    status = compute_status(
        spec(),
        [sts("ps", 1, 1), sts("worker", 2, 2)],
        [pod("ps", 0), pod("worker", 0, 3), pod("worker", 1, 1)],
        generation=5,
        previous=None,
        now=T0,
    )
    assert status["phase"] == "Running"
    assert status["observedGeneration"] == 5
    assert status["endpoint"] == "grpc://demo-client.team.svc:2222"
    assert status["clientTask"] == "/job:worker/task:0"
    assert status["clusterSpec"]["worker"] == [
        "demo-worker-0.demo-worker.team.svc:2222",
        "demo-worker-1.demo-worker.team.svc:2222",
    ]
    assert (status["readyTasks"], status["desiredTasks"]) == (3, 3)
    assert status["ready"] == "ps 1/1, worker 2/2"
    assert status["jobs"][1] == {
        "name": "worker",
        "desired": 2,
        "current": 2,
        "ready": 2,
        "updated": 2,
        "restarts": 4,
    }
    assert conds(status) == {
        "Ready": ("True", "AllTasksReady"),
        "Progressing": ("False", "Settled"),
        "Degraded": ("False", "AsExpected"),
    }
    assert all(c["lastTransitionTime"] == T0 for c in status["conditions"])


def test_nothing_ready_is_pending_then_progressing() -> None:
    status = compute_status(spec(), [], [], generation=1, previous=None, now=T0)
    assert status["phase"] == "Pending"
    assert conds(status)["Progressing"] == ("True", "TasksStarting")
    assert status["ready"] == "ps 0/1, worker 0/2"
    half = compute_status(
        spec(), [sts("ps", 1, 1), sts("worker", 2, 1)], [], generation=1, previous=status, now=T1
    )
    assert half["phase"] == "Progressing"
    # Ready stayed False: its transition time is the first one.
    assert condition(half, "Ready")["lastTransitionTime"] == T0


def test_a_running_cluster_that_loses_a_task_is_degraded_until_it_is_back() -> None:
    """A ps pod deleted from a running cluster: its peers are cut off from it, so the cluster is
    Degraded naming the job (not Progressing as if it were starting), then Running again."""
    everything = [pod("ps", 0), pod("worker", 0), pod("worker", 1)]
    running = compute_status(
        spec(),
        [sts("ps", 1, 1), sts("worker", 2, 2)],
        everything,
        generation=3,
        previous=None,
        now=T0,
    )
    lost = compute_status(
        spec(),
        [sts("ps", 0, 0, updated=0), sts("worker", 2, 2)],
        everything[1:],
        generation=3,
        previous=running,
        now=T1,
    )
    assert lost["phase"] == "Degraded"
    assert conds(lost)["Degraded"] == ("True", "TaskLost")
    assert "ps: 0/1 ready" in condition(lost, "Degraded")["message"]
    still = compute_status(
        spec(),
        [sts("ps", 1, 0), sts("worker", 2, 2)],
        everything[1:],
        generation=3,
        previous=lost,
        now=T1,
    )
    assert conds(still)["Degraded"] == ("True", "TaskLost")
    back = compute_status(
        spec(),
        [sts("ps", 1, 1), sts("worker", 2, 2)],
        everything,
        generation=3,
        previous=still,
        now=T1,
    )
    assert back["phase"] == "Running"
    assert conds(back)["Degraded"] == ("False", "AsExpected")


def test_a_deleted_task_is_lost_before_its_statefulset_counts_it() -> None:
    """The StatefulSet's readyReplicas lags a deleted pod (updatedReplicas drops first): the
    pods say the task is gone, and no new revision means it is not a rolling update. A pod
    being deleted is lost while its status still says ready."""
    everything = [pod("ps", 0), pod("worker", 0), pod("worker", 1)]
    running = compute_status(
        spec(), [sts("ps", 1, 1), sts("worker", 2, 2)], everything,
        generation=3, previous=None, now=T0,
    )  # fmt: skip
    assert running["phase"] == "Running"
    lagging = [sts("ps", 1, 1, updated=0), sts("worker", 2, 2)]
    gone = compute_status(spec(), lagging, everything[1:], generation=3, previous=running, now=T1)
    assert gone["phase"] == "Degraded"
    assert conds(gone)["Degraded"] == ("True", "TaskLost")
    assert conds(gone)["Progressing"][1] == "TasksStarting"
    terminating = [{**everything[0], "metadata": {**everything[0]["metadata"],
                                                  "deletionTimestamp": T1}}]  # fmt: skip
    ending = compute_status(
        spec(), [sts("ps", 1, 0), sts("worker", 2, 2)], terminating + everything[1:],
        generation=3, previous=running, now=T1,
    )  # fmt: skip
    assert conds(ending)["Degraded"] == ("True", "TaskLost")


def test_a_new_generation_starting_is_not_a_lost_task() -> None:
    running = compute_status(
        spec(),
        [sts("ps", 1, 1), sts("worker", 2, 2)],
        [],
        generation=3,
        previous=None,
        now=T0,
    )
    scaled = compute_status(
        spec(),
        [sts("ps", 1, 1), sts("worker", 2, 1)],
        [],
        generation=4,
        previous=running,
        now=T1,
    )
    assert scaled["phase"] == "Progressing"
    assert conds(scaled)["Degraded"][0] == "False"


def test_rolling_update_is_progressing() -> None:
    status = compute_status(
        spec(),
        [sts("ps", 1, 1, rolled=False, updated=0), sts("worker", 2, 2)],
        [],
        generation=1,
        previous=None,
        now=T0,
    )
    assert status["phase"] == "Progressing"
    assert conds(status)["Progressing"] == ("True", "RollingUpdate")
    assert conds(status)["Ready"][0] == "False"


FATAL = "tfcluster-server: job 'ps' is not in the cluster (jobs: worker)"


def degraded_with(pods: list[dict[str, Any]], now: str = T0) -> dict[str, Any]:
    return compute_status(
        spec(),
        [sts("ps", 1, 0), sts("worker", 2, 2)],
        [*pods, pod("worker", 0), pod("worker", 1)],
        generation=1,
        previous=None,
        now=now,
    )


def test_a_task_crashing_past_the_threshold_is_degraded_with_its_exit_code_and_message() -> None:
    """Terminated with exit code 1 after its 3rd restart (between back-offs): Degraded,
    naming the task, the exit code, the kubelet's reason and the container's last message."""
    status = degraded_with([pod("ps", 0, RESTART_THRESHOLD, terminated=crashed(1, FATAL))])
    assert status["phase"] == "Degraded"
    assert status["reason"] == "CrashLoopBackOff"
    assert status["restarts"] == RESTART_THRESHOLD
    deg = condition(status, "Degraded")
    assert (deg["status"], deg["reason"]) == ("True", "CrashLoopBackOff")
    assert deg["message"] == (
        f"/job:ps/task:0 (pod demo-ps-0): crash-looping ({RESTART_THRESHOLD}+ restarts), "
        f"last exit code 1 (Error): {FATAL}"
    )


@pytest.mark.parametrize(
    "crashing",
    [
        # Waiting out the kubelet's back-off, the crash in lastState.
        pod("ps", 0, 4, "CrashLoopBackOff", last=crashed(1, FATAL)),
        # Running again after its 3rd crash, not ready yet.
        pod("ps", 0, 3, last=crashed(1, FATAL), ready=False),
        # Ready again, but the crash was a minute ago.
        pod("ps", 0, 3, last=crashed(1, FATAL, "2024-01-01T00:04:00Z"), ready=True),
    ],
)
def test_crash_loop_is_seen_in_every_state_of_the_loop(crashing: dict[str, Any]) -> None:
    status = degraded_with([crashing], now=T1)
    deg = condition(status, "Degraded")
    assert (deg["status"], deg["reason"]) == ("True", "CrashLoopBackOff")
    assert "/job:ps/task:0" in deg["message"] and FATAL in deg["message"]
    assert "last exit code 1 (Error)" in deg["message"]


@pytest.mark.parametrize(
    "steady",
    [
        # Fewer restarts than the threshold, even in back-off.
        pod("ps", 0, RESTART_THRESHOLD - 1, "CrashLoopBackOff", last=crashed()),
        # Restarted often, but ready and its last crash is long past (the kubelet's window).
        pod("ps", 0, 9, last=crashed(finished="2023-12-31T23:00:00Z"), ready=True),
        # Restarted often, ready, nothing known of the crash: it runs.
        pod("ps", 0, 9, ready=True),
    ],
)
def test_restarts_alone_do_not_degrade(steady: dict[str, Any]) -> None:
    status = degraded_with([steady], now=T1)
    assert condition(status, "Degraded")["status"] == "False"
    assert status["restarts"] == steady["status"]["containerStatuses"][0]["restartCount"]


def test_the_last_line_of_a_log_tail_is_the_message() -> None:
    """FallbackToLogsOnError: the kubelet reports the end of the log; the exception is last."""
    tail = "Traceback (most recent call last):\n  File x\nRuntimeError: out of memory\n\n"
    status = degraded_with([pod("ps", 0, 5, terminated=crashed(137, tail))])
    assert condition(status, "Degraded")["message"].endswith(
        "last exit code 137 (Error): RuntimeError: out of memory"
    )


def test_a_container_the_kubelet_cannot_start_degrades_at_once() -> None:
    status = degraded_with([pod("ps", 0, 0, "ImagePullBackOff")])
    deg = condition(status, "Degraded")
    assert (deg["status"], deg["reason"]) == ("True", "ImagePullBackOff")
    assert deg["message"] == "/job:ps/task:0 (pod demo-ps-0): ImagePullBackOff"


def test_unschedulable_pods_name_the_missing_resource() -> None:
    why = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    workers = [pod("worker", i, scheduled=("Unschedulable", why)) for i in range(100)]
    status = compute_status(
        spec(jobs=[{"name": "worker", "replicas": 100, "gpus": 1}]),
        [sts("worker", 100, 0)],
        workers,
        generation=1,
        previous=None,
        now=T0,
    )
    assert (status["phase"], status["reason"]) == ("Pending", "Unschedulable")
    progressing = condition(status, "Progressing")
    assert (progressing["status"], progressing["reason"]) == ("True", "Unschedulable")
    assert progressing["message"] == (
        "/job:worker/task:0 (pod demo-worker-0), /job:worker/task:1 (pod demo-worker-1), "
        "/job:worker/task:2 (pod demo-worker-2) and 97 more tasks: cannot be scheduled: " + why
    )
    assert condition(status, "Ready")["reason"] == "Unschedulable"
    assert condition(status, "Degraded")["status"] == "False"


def test_reason_is_the_headline_condition() -> None:
    starting = compute_status(spec(), [], [], generation=1, previous=None, now=T0)
    assert starting["reason"] == "TasksStarting"
    running = compute_status(
        spec(), [sts("ps", 1, 1), sts("worker", 2, 2)], [], generation=1, previous=None, now=T0
    )
    assert running["reason"] == "AllTasksReady"
    failed = invalid_status(SpecError("ReservedEnv", "x"), generation=1, previous=None, now=T0)
    assert failed["reason"] == "ReservedEnv"


def test_reconcile_error_is_degraded() -> None:
    status = compute_status(
        spec(), [], [], generation=1, previous=None, now=T0, reconcile_error="boom"
    )
    assert status["phase"] == "Degraded"
    assert conds(status)["Degraded"] == ("True", "ReconcileError")


def test_suspended() -> None:
    s = spec(suspend=True)
    going = compute_status(
        s,
        [sts("ps", 1, 1), sts("worker", 2, 0, updated=0)],
        [],
        generation=3,
        previous=None,
        now=T0,
    )
    assert going["phase"] == "Progressing"
    assert conds(going)["Progressing"] == ("True", "Suspending")
    gone = compute_status(
        s, [sts("ps", 0, 0), sts("worker", 0, 0)], [], generation=3, previous=going, now=T1
    )
    assert gone["phase"] == "Suspended"
    assert gone["ready"] == "ps 0/0, worker 0/0"
    assert conds(gone)["Ready"] == ("False", "Suspended")


def test_invalid_status() -> None:
    status = invalid_status(
        SpecError("NoClientTask", "no task"), generation=4, previous=None, now=T0
    )
    assert status["phase"] == "Failed"
    assert conds(status) == {
        "Ready": ("False", "NoClientTask"),
        "Progressing": ("False", "NoClientTask"),
        "Degraded": ("True", "NoClientTask"),
    }
    assert condition(status, "Degraded")["message"] == "no task"


def test_merge_patch_nulls_what_went_away() -> None:
    old = {
        "phase": "Running",
        "endpoint": "x",
        "clusterSpec": {"ps": ["a"], "worker": ["b"]},
        "jobs": [1],
    }
    new = {"phase": "Failed", "clusterSpec": {"worker": ["b", "c"]}, "jobs": []}
    assert merge_patch(old, new) == {
        "phase": "Failed",
        "endpoint": None,
        "clusterSpec": {"ps": None, "worker": ["b", "c"]},
        "jobs": [],
    }


def test_metrics_follow_status() -> None:
    registry = CollectorRegistry()
    metrics = OperatorMetrics(registry)
    running = compute_status(
        spec(), [sts("ps", 1, 1), sts("worker", 2, 2)], [], generation=1, previous=None, now=T0
    )
    metrics.observe("team", "demo", running)
    metrics.observe(
        "team", "other", compute_status(spec(), [], [], generation=1, previous=None, now=T0)
    )

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, labels)

    assert value("tfcluster_operator_clusters", phase="Running") == 1
    assert value("tfcluster_operator_clusters", phase="Pending") == 1
    assert (
        value("tfcluster_operator_tasks_ready", namespace="team", cluster="demo", job="worker") == 2
    )
    assert (
        value("tfcluster_operator_tasks_desired", namespace="team", cluster="other", job="worker")
        == 2
    )
    metrics.forget("team", "demo")
    assert value("tfcluster_operator_clusters", phase="Running") == 0
    assert (
        value("tfcluster_operator_tasks_ready", namespace="team", cluster="demo", job="worker")
        is None
    )


def test_config_from_env() -> None:
    cfg = OperatorConfig.from_env(
        {
            "TFCLUSTER_OPERATOR_NAMESPACES": " a, b ,",
            "TFCLUSTER_OPERATOR_METRICS_PORT": "0",
            "TFCLUSTER_OPERATOR_DEFAULT_IMAGE": "x:1",
            "TFCLUSTER_OPERATOR_CLUSTER_DOMAIN": "cluster.local.",
        }
    )
    assert cfg.namespaces == ("a", "b") and not cfg.clusterwide
    assert (cfg.metrics_port, cfg.health_port, cfg.default_image) == (0, 8081, "x:1")
    assert cfg.cluster_domain == "cluster.local"
    assert OperatorConfig.from_env({}).clusterwide
    with pytest.raises(ConfigError, match="TFCLUSTER_OPERATOR_HEALTH_PORT"):
        OperatorConfig.from_env({"TFCLUSTER_OPERATOR_HEALTH_PORT": "http"})


def test_the_documented_crash_loop_thresholds() -> None:
    """README's troubleshooting section and the k8s tests rely on these two numbers."""
    from tfcluster_operator.status import CRASH_WINDOW_SECONDS

    assert (RESTART_THRESHOLD, CRASH_WINDOW_SECONDS) == (3, 600)
