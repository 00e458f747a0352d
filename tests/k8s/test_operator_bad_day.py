"""The operator on a bad day, checked as a user sees it (`kubectl get tfc`, `kubectl
describe tfc`, events): tasks that keep crashing, pods no node can take, children someone
edited by hand, a namespace being deleted, and what a 100-worker start costs the API server.

The operator runs as its ServiceAccount under manifests/rbac.yaml, with a 1 s resync; the
tests play the kubelet and the scheduler (patching pod status), and for a crash they really
start ``tfcluster-server`` with the pod's environment and report its exit code and
termination message as the kubelet does.
"""

from __future__ import annotations

import json
import socket
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
from kubernetes import client  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.k8s_control_plane import ControlPlane  # noqa: E402
from support.kubectl import Kubectl, describe_conditions, describe_events  # noqa: E402
from support.operator_on_k8s import (  # noqa: E402
    Cluster,
    Operator,
    condition,
    describe_request,
    example,
    pod_env,
    requests_of,
    run_task_server,
    running,
    wait_for,
)

pytestmark = pytest.mark.k8s

RESYNC_SECONDS = 1.0
# README's troubleshooting section documents both (status.py defines them).
RESTART_THRESHOLD = 3  # restarts after which a task that does not run steadily is crash-looping
CRASH_WINDOW_SECONDS = 600  # a crash this recent still counts, even if the task is ready again


@pytest.fixture(scope="module")
def operator_env() -> dict[str, str]:
    return {"TFCLUSTER_OPERATOR_RESYNC_SECONDS": str(RESYNC_SECONDS)}


def iso(seconds_ago: float = 0.0) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds_ago))


def warnings(c: Cluster, reason: str) -> list[client.CoreV1Event]:
    return [e for e in c.events() if e.type == "Warning" and e.reason == reason]


# ---------------------------------------------------------------------- crash loops


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something else listens on: a task server told to serve there cannot start."""
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def test_a_task_that_keeps_crashing_is_degraded_with_its_exit_code_and_last_message(
    operator: Operator,
    cluster_ns: str,
    k8s_api_client: ApiClient,
    kubectl: Kubectl,
    taken_port: int,
    tmp_path: Path,
) -> None:
    """The ps task cannot start (its gRPC port is taken) and the kubelet restarts it: below
    the threshold the cluster is only not ready; from the 3rd restart on it is Degraded,
    naming the task, the exit code and the server's own last message (its termination
    message), with the restarts in `kubectl get`, and one warning for it however often the
    loop goes round. Recovery is announced; the same crash again counts on the same event."""
    c = Cluster(k8s_api_client, cluster_ns)
    body = example()
    body["spec"]["port"] = taken_port
    c.create(body)
    c.drive_until("Running", running)
    ps = c.sts("ps")
    (pod,) = c.pods("ps")
    assert ps is not None

    crashes: list[dict[str, Any]] = []
    for restarts in range(1, RESTART_THRESHOLD + 1):
        code, message = run_task_server(pod_env(ps, pod), tmp_path / "termination-log")
        assert code == 1 and f"port {taken_port}" in message and "is in use" in message
        crash = {
            "exitCode": code,
            "reason": "Error",
            "message": message,
            "startedAt": iso(1),
            "finishedAt": iso(),
        }
        c.set_container(
            "example-ps-0",
            restarts=restarts,
            state={"terminated": crash},
            last={"terminated": crashes[-1]} if crashes else None,
        )
        crashes.append(crash)
        if restarts < RESTART_THRESHOLD:
            c.wait_status(
                f"{restarts} restarts, not degraded",
                lambda s, n=restarts: s.get("restarts") == n and s.get("phase") == "Progressing",
            )
            assert condition(c.status(), "Degraded")["status"] == "False"

    status = c.wait_status("Degraded", lambda s: s.get("phase") == "Degraded")
    row = kubectl.get_tfc(cluster_ns, "example")
    assert (row["PHASE"], row["REASON"], row["RESTARTS"]) == (
        "Degraded",
        "CrashLoopBackOff",
        str(RESTART_THRESHOLD),
    )
    assert row["READY"] == "ps 0/1, worker 2/2"
    expected = (
        f"/job:ps/task:0 (pod example-ps-0): crash-looping ({RESTART_THRESHOLD}+ restarts), "
        f"last exit code 1 (Error): {crashes[-1]['message']}"
    )
    degraded = describe_conditions(kubectl.describe_tfc(cluster_ns, "example"))["Degraded"]
    assert (degraded["Status"], degraded["Reason"]) == ("True", "CrashLoopBackOff")
    assert condition(status, "Degraded")["message"] == expected
    assert degraded["Message"] == expected
    wait_for("the CrashLoopBackOff warning", lambda: warnings(c, "CrashLoopBackOff"), 10)

    # Round the loop again: waiting out the back-off, then running (not ready) once more.
    c.set_container(
        "example-ps-0",
        restarts=RESTART_THRESHOLD,
        state={"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
        last={"terminated": crashes[-1]},
    )
    c.set_container(
        "example-ps-0",
        restarts=RESTART_THRESHOLD + 1,
        state={"running": {"startedAt": iso()}},
        last={"terminated": crashes[-1]},
    )
    c.wait_status("4 restarts", lambda s: s.get("restarts") == RESTART_THRESHOLD + 1)
    time.sleep(2 * RESYNC_SECONDS)
    assert kubectl.get_tfc(cluster_ns, "example")["RESTARTS"] == str(RESTART_THRESHOLD + 1)
    (warning,) = warnings(c, "CrashLoopBackOff")  # one event for one reason, however long
    assert (warning.count, warning.message) == (1, expected)

    # Ready, the crash long past: no longer degraded, and said so.
    c.set_container(
        "example-ps-0",
        restarts=RESTART_THRESHOLD + 1,
        state={"running": {"startedAt": iso(CRASH_WINDOW_SECONDS)}},
        last={"terminated": {**crashes[-1], "finishedAt": iso(CRASH_WINDOW_SECONDS + 60)}},
        ready=True,
    )
    c.wait_status("Running again", running)
    wait_for("a Recovered event", lambda: [e for e in c.events() if e.reason == "Recovered"], 10)

    # The same crash again: the same warning, counted (kubectl describe: "x2 over ...").
    c.set_container(
        "example-ps-0",
        restarts=RESTART_THRESHOLD + 2,
        state={"terminated": {**crashes[-1], "finishedAt": iso()}},
        last={"terminated": crashes[-1]},
    )
    c.wait_status("Degraded again", lambda s: s.get("phase") == "Degraded")
    wait_for("the warning counted twice", lambda: warnings(c, "CrashLoopBackOff")[0].count == 2, 10)
    assert len(warnings(c, "CrashLoopBackOff")) == 1
    (shown,) = [
        e
        for e in describe_events(kubectl.describe_tfc(cluster_ns, "example"))
        if e["Reason"] == "CrashLoopBackOff"
    ]
    assert shown["Type"] == "Warning" and "(x2 over" in shown["Age"]


def test_a_crash_that_ages_out_is_cleared_by_the_periodic_resync(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    """Nothing changes on the pod once its last crash is old enough: only the operator's
    periodic resync (1 s here) can notice, and clears Degraded without any event."""
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    c.drive_until("Running", running)
    crash = {"exitCode": 2, "reason": "Error", "message": "tfcluster-server: bad flag"}
    c.set_container(
        "example-ps-0",
        restarts=RESTART_THRESHOLD,
        state={"running": {"startedAt": iso(CRASH_WINDOW_SECONDS - 5)}},
        # The crash leaves the kubelet's window a few seconds from now.
        last={"terminated": {**crash, "finishedAt": iso(CRASH_WINDOW_SECONDS - 4)}},
        ready=True,
    )
    c.wait_status("Degraded", lambda s: s.get("phase") == "Degraded", 10)
    status = c.wait_status("Running after the window", running, 20)
    assert condition(status, "Degraded")["status"] == "False"


# ---------------------------------------------------------------------- scheduling


def test_pods_no_node_can_take_say_which_resource_is_missing(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient, kubectl: Kubectl
) -> None:
    """Workers asking for a GPU no node has stay Pending with PodScheduled=False: the
    cluster says so (reason Unschedulable, the scheduler's message naming nvidia.com/gpu),
    warns once per distinct reason, and runs once they are placed."""
    c = Cluster(k8s_api_client, cluster_ns)
    body = example()
    body["spec"]["jobs"][1]["gpus"] = 1
    c.create(body)
    wait_for("3 pods", lambda: c.pods_if(3))
    c.mark_ready("ps")
    gpus = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."  # noqa: E501
    for i in range(2):
        c.unschedulable(f"example-worker-{i}", gpus)
    # The ps counts as ready once the StatefulSet controller has seen its pod ready, which
    # may come after the workers' Unschedulable: wait for both.
    c.wait_status(
        "Unschedulable with the ps ready",
        lambda s: s.get("reason") == "Unschedulable" and s.get("readyTasks") == 1,
    )
    row = kubectl.get_tfc(cluster_ns, "example")
    assert (row["PHASE"], row["REASON"], row["READY"]) == (
        "Progressing",
        "Unschedulable",
        "ps 1/1, worker 0/2",
    )
    conditions = describe_conditions(kubectl.describe_tfc(cluster_ns, "example"))
    progressing = conditions["Progressing"]
    assert (progressing["Status"], progressing["Reason"]) == ("True", "Unschedulable")
    assert progressing["Message"] == (
        "/job:worker/task:0 (pod example-worker-0), /job:worker/task:1 (pod example-worker-1):"
        f" cannot be scheduled: {gpus}"
    )
    assert conditions["Degraded"]["Status"] == "False"
    wait_for("an Unschedulable warning", lambda: warnings(c, "Unschedulable"), 10)

    # Another reason (a taint), another warning; the same reason again, no new one.
    taint = "0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: training}."
    for i in range(2):
        c.unschedulable(f"example-worker-{i}", taint)
    status = c.wait_status(
        "the taint", lambda s: "untolerated taint" in condition(s, "Progressing")["message"]
    )
    assert "{dedicated: training}" in condition(status, "Progressing")["message"]
    wait_for("a second warning", lambda: len(warnings(c, "Unschedulable")) == 2, 10)
    time.sleep(2 * RESYNC_SECONDS)
    assert len(warnings(c, "Unschedulable")) == 2

    status = c.drive_until("Running once placed", running)
    assert status["reason"] == "AllTasksReady"


# ---------------------------------------------------------------------- drift


def test_children_edited_by_hand_are_driven_back_and_others_fields_are_left_alone(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient, kubectl: Kubectl
) -> None:
    """`kubectl scale` and `kubectl patch` of what the operator sets are reverted at once,
    with a warning naming the field and both values; fields other managers own (an
    annotation, a label, an extra environment variable) stay."""
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    c.drive_until("Running", running)
    ns = ["-n", cluster_ns]

    kubectl("scale", "sts", "example-worker", "--replicas=5", *ns)
    wait_for(
        "the worker StatefulSet back at 2 replicas",
        lambda: (
            c.raw_sts("worker")["spec"]["replicas"] == 2
            and any("spec.replicas 5 -> 2" in e.message for e in warnings(c, "DriftReverted"))
        ),
        10,
    )
    (reverted,) = warnings(c, "DriftReverted")
    assert reverted.message.startswith("Reverted StatefulSet example-worker: spec.replicas 5 -> 2")

    kubectl(
        "patch", "svc", "example-worker", *ns, "-p", '{"spec":{"publishNotReadyAddresses":false}}'
    )
    wait_for(
        "publishNotReadyAddresses restored",
        lambda: c.service("example-worker").spec.publish_not_ready_addresses is True,  # type: ignore[union-attr]
        10,
    )
    wait_for(
        "a warning naming it",
        lambda: any(
            "Service example-worker: spec.publishNotReadyAddresses false -> true" in e.message
            for e in warnings(c, "DriftReverted")
        ),
        10,
    )

    # An environment variable the operator sets is its own; one it does not set is not.
    kubectl("set", "env", "sts/example-worker", "TFCLUSTER_METRICS_PORT=1234", "EXTRA=1", *ns)
    kubectl("annotate", "sts", "example-worker", "team.example/owner=ml", *ns)
    kubectl("label", "svc", "example-worker", "team.example/tier=gold", *ns)

    def env() -> dict[str, str]:
        sts = c.raw_sts("worker")
        return {
            e["name"]: e.get("value", "")
            for e in sts["spec"]["template"]["spec"]["containers"][0]["env"]
        }

    wait_for(
        "TFCLUSTER_METRICS_PORT restored", lambda: env()["TFCLUSTER_METRICS_PORT"] == "9090", 10
    )
    time.sleep(3 * RESYNC_SECONDS)  # resyncs come and go: nothing of the others' is touched
    assert env()["EXTRA"] == "1"
    assert c.raw_sts("worker")["metadata"]["annotations"]["team.example/owner"] == "ml"
    service = c.service("example-worker")
    assert service is not None and service.metadata.labels["team.example/tier"] == "gold"
    assert any(
        'TFCLUSTER_METRICS_PORT].value "1234" -> "9090"' in e.message
        for e in warnings(c, "DriftReverted")
    )
    assert c.status()["observedGeneration"] == 1  # the TFCluster itself never changed


# ---------------------------------------------------------------------- a namespace going away


def test_deleting_a_namespace_makes_no_recreation_attempts(
    operator: Operator,
    k8s_control_plane: ControlPlane,
    k8s_api_client: ApiClient,
) -> None:
    """The namespace controller deletes the children (and the TFCluster, in any order): the
    operator creates nothing there any more, posts nothing, and gets no 403 for trying."""
    core = client.CoreV1Api(k8s_api_client)
    ns = f"doomed-{int(time.time() * 1000) % 10**8}"
    core.create_namespace({"metadata": {"name": ns}})
    c = Cluster(k8s_api_client, ns)
    c.create(example())
    c.drive_until("Running", running)
    time.sleep(0.5)
    deleting = time.time()
    core.delete_namespace(ns)

    def gone() -> bool:
        try:
            core.read_namespace(ns)
        except ApiException as err:
            return err.status == 404
        return False

    wait_for(f"namespace {ns} to be deleted", gone, 90)
    time.sleep(2 * RESYNC_SECONDS)
    made = requests_of(k8s_control_plane.audit_events(operator.user), since=deleting, namespace=ns)
    writes = [
        describe_request(e)
        for e in made
        if e["verb"] in ("create", "patch", "update")
        and e["objectRef"].get("resource") in ("statefulsets", "services", "events")
    ]
    refused = [describe_request(e) for e in made if e.get("responseStatus", {}).get("code") == 403]
    assert not writes, f"the operator wrote in namespace {ns} as it went: {writes}"
    assert not refused, f"the operator was refused in namespace {ns}: {refused}"
    assert operator.process.poll() is None
    assert 'HTTP/1.1" 403' not in operator.log_tail(400)  # nothing refused, kopf's either


# ---------------------------------------------------------------------- cost


COALESCE_SECONDS = 0.25  # the operator's default (config.DEFAULT_COALESCE_SECONDS)


def test_a_100_worker_start_costs_a_bounded_number_of_api_requests(
    operator: Operator,
    cluster_ns: str,
    k8s_control_plane: ControlPlane,
    k8s_api_client: ApiClient,
) -> None:
    """From `kubectl apply` to Running with 101 pods, counted by the API server's audit log.

    The bound, and why: 5 children (2 headless Services, 2 StatefulSets, the client
    Service) each cost one server-side dry run and one apply (10); events: 5 creations and
    the phase changes (at most 10); the status is written at most once per gathering window
    (0.25 s) while pods become ready. kopf's watches are cluster-wide and started before
    (not counted; they reconnect every few minutes whatever the load). Nothing is read
    per pod: no GET, no LIST at all (children come from the watches). Before, every pod event
    cost a GET of the TFCluster and LISTs of all children: O(pods x events), about 10^4."""
    c = Cluster(k8s_api_client, cluster_ns)
    body = example()
    body["spec"]["jobs"][1]["replicas"] = 100
    body["spec"]["jobs"][1]["resources"] = {"requests": {"cpu": "10m", "memory": "16Mi"}}
    started = time.time()
    c.create(body)
    wait_for("101 pods", lambda: c.pods_if(101), 120)
    c.drive_until(
        "Running with 101 tasks", lambda s: running(s) and s.get("readyTasks") == 101, 180
    )
    finished = time.time()
    time.sleep(1.0)  # the audit log is written as requests end
    made = requests_of(
        k8s_control_plane.audit_events(operator.user),
        since=started,
        until=finished + 0.5,
        namespace=cluster_ns,  # other tests' namespaces are still going away meanwhile
    )
    by_kind = Counter(
        f"{e['verb']} {e['objectRef'].get('resource')}"
        + (f"/{e['objectRef']['subresource']}" if e["objectRef"].get("subresource") else "")
        for e in made
    )
    summary = json.dumps(dict(by_kind), sort_keys=True)
    print(f"100-worker start: {len(made)} requests in {finished - started:.1f} s: {summary}")
    reads = [describe_request(e) for e in made if e["verb"] in ("get", "list")]
    assert not reads, f"reads per event: {reads[:10]}"
    child_writes = sum(
        n for k, n in by_kind.items() if k.split()[1] in ("statefulsets", "services")
    )
    status_writes = by_kind["patch tfclusters/status"]
    event_writes = by_kind["create events"] + by_kind["patch events"]
    assert child_writes == 10, summary  # a dry run and an apply per child, nothing more
    assert event_writes <= 10, summary
    assert status_writes <= (finished - started) / COALESCE_SECONDS + 2, summary
    bound = 10 + 10 + (finished - started) / COALESCE_SECONDS + 2
    assert len(made) <= bound, f"{len(made)} requests > {bound:.0f}: {summary}"
