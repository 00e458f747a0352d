"""The operator against the real API server, running as its own ServiceAccount under the
RBAC of manifests/rbac.yaml (never as admin). No kubelet runs: the StatefulSet controller
creates pods that stay Pending, and the tests play the kubelet by patching pod status."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
from kubernetes import client, utils  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.kubectl import Kubectl, describe_conditions  # noqa: E402
from support.operator_on_k8s import (  # noqa: E402
    GROUP,
    MANIFESTS,
    OPERATOR_NS,
    OPERATOR_SA,
    PLURAL,
    POD_INDEX,
    VERSION,
    Cluster,
    Operator,
    condition,
    example,
    load_yaml,
    running,
    tf_config_of,
    wait_for,
)

pytestmark = pytest.mark.k8s

# ---------------------------------------------------------------------- the example, step by step


@dataclass
class Converged:
    """The example TFCluster, followed from its creation to Running: what was seen on the way."""

    cluster: Cluster
    owner_uid: str
    ps: Any  # the StatefulSets and the client Service as first created
    worker: Any
    client_service: Any
    pods: list[Any]  # as the StatefulSet controller made them, before any was ready
    pending: dict[str, Any]  # the status before any pod was ready
    running: dict[str, Any]  # the status once the "kubelet" marked every pod ready
    reconciles_before: float  # the operator's successful reconciles before the creation

    @property
    def ns(self) -> str:
        return self.cluster.ns


@pytest.fixture(scope="module")
def converged_example(
    operator: Operator, k8s_module_namespace: str, k8s_api_client: ApiClient
) -> Iterator[Converged]:
    """manifests/examples/tfcluster.yaml, created once and driven to Running; the tests that
    follow each check one part of what the operator made and reported on the way."""
    reconciles_before = operator.metric("tfcluster_operator_reconciles_total", result="success")
    c = Cluster(k8s_api_client, k8s_module_namespace)
    owner_uid = c.create(example())["metadata"]["uid"]
    ps = wait_for("the ps StatefulSet", lambda: c.sts("ps"))
    worker = wait_for("the worker StatefulSet", lambda: c.sts("worker"))
    client_service = wait_for("the client Service", lambda: c.service("example-client"))
    pods = wait_for("3 pods", lambda: c.pods_if(3))
    pending = c.wait_status("Pending with an endpoint", lambda s: s.get("phase") == "Pending")
    status = c.drive_until("Running", running)
    yield Converged(
        c, owner_uid, ps, worker, client_service, pods, pending, status, reconciles_before
    )
    # A crashed operator fails the scenario that crashed it, not the next test.
    assert operator.process.poll() is None, f"the operator died:\n{operator.log_tail()}"


def test_children_are_owned_by_the_tfcluster(converged_example: Converged) -> None:
    """Owner references: deleting the TFCluster deletes these."""
    ex = converged_example
    c = ex.cluster
    for obj in (
        ex.ps,
        ex.worker,
        ex.client_service,
        c.service("example-ps"),
        c.service("example-worker"),
    ):
        assert obj is not None
        (ref,) = obj.metadata.owner_references
        assert (ref.kind, ref.name, ref.uid, ref.controller) == (
            "TFCluster",
            "example",
            ex.owner_uid,
            True,
        )
        assert obj.metadata.labels["app.kubernetes.io/managed-by"] == "tfcluster-operator"


def test_job_services_are_headless_and_the_client_service_selects_worker_0(
    converged_example: Converged,
) -> None:
    """Headless per-job Services that publish not-ready pods; the client Service on 2222."""
    c = converged_example.cluster
    for job in ("ps", "worker"):
        svc = c.service(f"example-{job}")
        assert svc is not None
        assert svc.spec.cluster_ip == "None"
        assert svc.spec.publish_not_ready_addresses is True
        assert svc.spec.selector == {"tfcluster.dev/cluster": "example", "tfcluster.dev/job": job}
        assert [(p.name, p.port, p.target_port) for p in svc.spec.ports] == [
            ("grpc", 2222, "grpc"),
            ("metrics", 9090, "metrics"),
            ("direct", 2223, "direct"),
        ]
    client_svc = converged_example.client_service
    assert [(p.name, p.port, p.target_port) for p in client_svc.spec.ports] == [
        ("grpc", 2222, "grpc"),
        ("direct", 2223, "direct"),
    ]
    assert client_svc.spec.selector["statefulset.kubernetes.io/pod-name"] == "example-worker-0"


def test_statefulsets_carry_replicas_ports_probe_and_resources(
    converged_example: Converged,
) -> None:
    """StatefulSets: replicas, Parallel, ports by name, the gRPC readiness probe, resources."""
    ps, worker = converged_example.ps, converged_example.worker
    assert (ps.spec.replicas, worker.spec.replicas) == (1, 2)
    assert worker.spec.pod_management_policy == "Parallel"
    assert worker.spec.service_name == "example-worker"
    container = worker.spec.template.spec.containers[0]
    assert container.image == "tfcluster:0.1.0"
    assert container.command == ["tfcluster-server"]
    env = {e.name: e.value for e in container.env}
    assert (env["TFCLUSTER_METRICS_PORT"], env["TFCLUSTER_DIRECT_PORT"]) == ("9090", "2223")
    assert [(p.name, p.container_port) for p in container.ports] == [
        ("grpc", 2222),
        ("metrics", 9090),
        ("direct", 2223),
    ]
    assert container.readiness_probe.grpc.port == 2222
    assert container.resources.requests == {"cpu": "1", "memory": "1Gi"}
    assert worker.spec.template.metadata.annotations["prometheus.io/port"] == "9090"


def _expected_cluster(ns: str) -> dict[str, list[str]]:
    return {
        "ps": [f"example-ps-0.example-ps.{ns}.svc:2222"],
        "worker": [f"example-worker-{i}.example-worker.{ns}.svc:2222" for i in range(2)],
    }


def test_each_pod_tf_config_names_its_own_task(converged_example: Converged) -> None:
    """The pods the StatefulSet controller made: each one's TF_CONFIG names its own task."""
    ex = converged_example
    seen = set()
    for pod in ex.pods:
        job = pod.metadata.labels["tfcluster.dev/job"]
        index = int(pod.metadata.labels[POD_INDEX])
        assert pod.metadata.name == f"example-{job}-{index}"
        tf_config = tf_config_of(ex.ps if job == "ps" else ex.worker, pod)
        assert tf_config == {
            "cluster": _expected_cluster(ex.ns),
            "task": {"type": job, "index": index},
        }
        seen.add((job, index))
    assert seen == {("ps", 0), ("worker", 0), ("worker", 1)}


def test_status_is_pending_with_an_endpoint_before_pods_are_ready(
    converged_example: Converged,
) -> None:
    pending, ns = converged_example.pending, converged_example.ns
    assert pending["endpoint"] == f"grpc://example-client.{ns}.svc:2222"
    assert pending["clusterSpec"] == _expected_cluster(ns)
    assert condition(pending, "Ready")["status"] == "False"
    assert condition(pending, "Progressing")["status"] == "True"


def test_status_is_running_once_every_task_is_ready(converged_example: Converged) -> None:
    status = converged_example.running
    assert status["ready"] == "ps 1/1, worker 2/2"
    assert (status["readyTasks"], status["desiredTasks"]) == (3, 3)
    assert status["observedGeneration"] == converged_example.cluster.get()["metadata"]["generation"]
    assert status["clientTask"] == "/job:worker/task:0"
    ready = condition(status, "Ready")
    assert (ready["status"], ready["reason"]) == ("True", "AllTasksReady")
    assert condition(status, "Degraded")["status"] == "False"


def test_kubectl_get_shows_phase_reason_ready_restarts_generations_and_endpoint(
    converged_example: Converged, kubectl: Kubectl
) -> None:
    """`kubectl get tfc` as a user runs it: every column, and the spec's generation beside
    the one the operator has acted on (no lag here)."""
    ns = converged_example.ns
    output = kubectl("get", "tfc", "-n", ns)
    assert output.splitlines()[0].split() == [
        "NAME",
        "PHASE",
        "REASON",
        "READY",
        "RESTARTS",
        "GENERATION",
        "OBSERVED",
        "ENDPOINT",
        "AGE",
    ]
    row = kubectl.get_tfc(ns, "example")
    assert {k: v for k, v in row.items() if k != "AGE"} == {
        "NAME": "example",
        "PHASE": "Running",
        "REASON": "AllTasksReady",
        "READY": "ps 1/1, worker 2/2",
        "RESTARTS": "0",
        "GENERATION": "1",
        "OBSERVED": "1",
        "ENDPOINT": f"grpc://example-client.{ns}.svc:2222",
    }
    conditions = describe_conditions(kubectl.describe_tfc(ns, "example"))
    assert {t: (c["Status"], c["Reason"]) for t, c in conditions.items()} == {
        "Ready": ("True", "AllTasksReady"),
        "Progressing": ("False", "Settled"),
        "Degraded": ("False", "AsExpected"),
    }


def test_creations_are_events_and_the_tfcluster_has_no_finalizer(
    converged_example: Converged,
) -> None:
    """Events for the creations; no finalizer on the TFCluster (no timers, no daemons)."""
    c = converged_example.cluster
    reasons = [(e.type, e.reason, e.message) for e in c.events()]
    assert ("Normal", "Created", "Created StatefulSet example-worker") in reasons
    assert ("Normal", "Created", "Created Service example-client") in reasons
    assert ("Normal", "PhaseRunning", "phase Progressing -> Running") in reasons or any(
        r[1] == "PhaseRunning" for r in reasons
    )
    assert not c.get()["metadata"].get("finalizers")


def test_operator_metrics_count_reconciles_and_ready_tasks(
    converged_example: Converged, operator: Operator
) -> None:
    ns = converged_example.ns
    assert operator.metric("tfcluster_operator_reconciles_total", result="success") > (
        converged_example.reconciles_before
    )
    wait_for(
        "tasks_ready metric",
        lambda: (
            operator.metric(
                "tfcluster_operator_tasks_ready", namespace=ns, cluster="example", job="worker"
            )
            == 2
        ),
        10,
    )
    assert (
        operator.metric(
            "tfcluster_operator_tasks_desired", namespace=ns, cluster="example", job="ps"
        )
        == 1
    )
    assert operator.metric("tfcluster_operator_clusters", phase="Running") >= 1
    assert operator.metric("tfcluster_operator_reconcile_duration_seconds_count") >= 1


# ---------------------------------------------------------------------- changes and failures


def test_scaling_re_renders_tf_config_and_rolls_pods(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    c.drive_until("Running", running)
    before = c.raw_sts("ps")["status"]["updateRevision"]

    spec = example()["spec"]
    spec["jobs"][1]["replicas"] = 3
    c.patch_spec({"jobs": spec["jobs"]})

    def scaled() -> bool:
        worker = c.sts("worker")
        return worker is not None and worker.spec.replicas == 3

    wait_for("the worker StatefulSet at 3 replicas", scaled)
    # Every job's TF_CONFIG changed (the cluster part names 3 workers now): the ps rolls too.
    for job in ("ps", "worker"):
        sts = c.sts(job)
        assert sts is not None
        env = {e.name: e.value for e in sts.spec.template.spec.containers[0].env}
        assert env["TF_CONFIG"].count("example-worker-") == 3
    status = c.drive_until(
        "Running with 4 tasks, every pod rolled",
        lambda s: running(s) and s.get("desiredTasks") == 4,
        120,
    )
    assert status["ready"] == "ps 1/1, worker 3/3"
    assert len(status["clusterSpec"]["worker"]) == 3
    ps = c.raw_sts("ps")["status"]
    assert ps["updateRevision"] != before
    assert ps["currentRevision"] == ps["updateRevision"]
    # The pods now carry the new TF_CONFIG, each with its own index.
    worker = c.sts("worker")
    assert worker is not None
    for pod in c.pods("worker"):
        assert pod.metadata.labels["controller-revision-hash"] == worker.status.update_revision
        config = tf_config_of(worker, pod)
        assert config["task"]["index"] == int(pod.metadata.labels[POD_INDEX])
        assert len(config["cluster"]["worker"]) == 3
    assert any(e.reason == "Updated" and "example-ps" in e.message for e in c.events())


def test_suspend_scales_to_zero_and_back(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    c.drive_until("Running", running)

    c.patch_spec({"suspend": True})
    status = c.wait_status("Suspended", lambda s: s.get("phase") == "Suspended")
    assert status["ready"] == "ps 0/0, worker 0/0"
    assert condition(status, "Ready")["reason"] == "Suspended"
    assert all(c.sts(j).spec.replicas == 0 for j in ("ps", "worker"))  # type: ignore[union-attr]
    wait_for("every pod gone", lambda: not c.pods())

    c.patch_spec({"suspend": False})
    status = c.drive_until("Running again", running)
    assert status["ready"] == "ps 1/1, worker 2/2"
    assert len(c.pods()) == 3


def test_invalid_spec_becomes_condition_and_event(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    invalid_before = operator.metric("tfcluster_operator_reconciles_total", result="invalid")
    c = Cluster(k8s_api_client, cluster_ns)
    body = example()
    body["spec"]["jobs"] = [{"name": "ps", "replicas": 1}]  # the schema allows it; no client task
    c.create(body)

    status = c.wait_status("Failed", lambda s: s.get("phase") == "Failed")
    degraded = condition(status, "Degraded")
    assert (degraded["status"], degraded["reason"]) == ("True", "NoClientTask")
    assert "chief" in degraded["message"] and "worker" in degraded["message"]
    assert condition(status, "Ready")["reason"] == "NoClientTask"
    wait_for(
        "a NoClientTask warning event",
        lambda: any(e.type == "Warning" and e.reason == "NoClientTask" for e in c.events()),
    )
    assert c.sts("ps") is None  # nothing was built from it
    assert operator.metric("tfcluster_operator_reconciles_total", result="invalid") > invalid_before

    # A second kind: an environment variable the operator owns.
    c.patch_spec(
        {
            "jobs": [
                {"name": "ps", "replicas": 1},
                {
                    "name": "worker",
                    "template": {"spec": {"env": [{"name": "TF_CONFIG", "value": "{}"}]}},
                },
            ]
        }
    )
    status = c.wait_status(
        "ReservedEnv", lambda s: condition(s, "Degraded")["reason"] == "ReservedEnv"
    )
    assert status["phase"] == "Failed"

    # No crash loop: the operator is alive and retries nothing; one event per spec.
    time.sleep(2)
    assert operator.process.poll() is None
    warnings = [e for e in c.events() if e.reason == "ReservedEnv"]
    assert len(warnings) == 1 and warnings[0].count == 1

    # Fixing the spec picks up from there.
    c.patch_spec({"jobs": example()["spec"]["jobs"]})
    status = c.wait_status("Pending after the fix", lambda s: s.get("phase") == "Pending")
    assert condition(status, "Degraded")["status"] == "False"
    assert status["endpoint"].startswith("grpc://example-client.")
    assert c.sts("worker") is not None


def test_pod_template_the_api_server_rejects_fails_with_nothing_created_and_recovers(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient, kubectl: Kubectl
) -> None:
    """A pod template override that passes the CRD schema but not the StatefulSet's
    validation (a mount of a volume that does not exist): every child is validated with a
    server-side dry run first, so nothing at all is created; the TFCluster is Failed with the
    API server's own message (no retry can fix it: no retries); fixing the spec recovers."""
    c = Cluster(k8s_api_client, cluster_ns)
    body = example()
    body["spec"]["jobs"][1]["template"] = {
        "spec": {"volumeMounts": [{"name": "missing", "mountPath": "/data"}]}
    }
    c.create(body)

    status = c.wait_status("Failed", lambda s: s.get("phase") == "Failed")
    row = kubectl.get_tfc(cluster_ns, "example")
    assert (row["PHASE"], row["REASON"]) == ("Failed", "ChildRejected")
    degraded = describe_conditions(kubectl.describe_tfc(cluster_ns, "example"))["Degraded"]
    assert (degraded["Status"], degraded["Reason"]) == ("True", "ChildRejected")
    message = condition(status, "Degraded")["message"]
    assert message.startswith("the API server rejects StatefulSet example-worker (422): ")
    # The API server's own words, naming the field.
    assert 'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "missing"' in message
    assert "nothing was created or changed" in message
    # Nothing half-created: no StatefulSet, no Service, no pod.
    assert not c.apps.list_namespaced_stateful_set(cluster_ns).items
    assert not c.core.list_namespaced_service(cluster_ns).items
    # No retry loop, one warning event.
    time.sleep(3)
    assert c.status()["phase"] == "Failed"
    rejected = [e for e in c.events() if e.reason == "ChildRejected"]
    assert len(rejected) == 1 and rejected[0].type == "Warning" and rejected[0].count == 1
    assert operator.process.poll() is None
    assert operator.metric("tfcluster_operator_reconciles_total", result="rejected") >= 1

    c.patch_spec({"jobs": example()["spec"]["jobs"]})
    status = c.drive_until("Running after the fix", running)
    assert condition(status, "Degraded")["status"] == "False"
    assert kubectl.get_tfc(cluster_ns, "example")["PHASE"] == "Running"


def test_a_bad_change_leaves_the_running_children_as_they_were(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    """A rejected update changes nothing: the ps StatefulSet (whose TF_CONFIG would change
    too) keeps its template while the worker's new template is refused."""
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    c.drive_until("Running", running)
    before = {job: c.raw_sts(job)["metadata"]["generation"] for job in ("ps", "worker")}
    jobs = example()["spec"]["jobs"]
    jobs[1]["replicas"] = 3
    jobs[1]["template"] = {"spec": {"volumeMounts": [{"name": "missing", "mountPath": "/d"}]}}
    c.patch_spec({"jobs": jobs})
    status = c.wait_status("Failed", lambda s: s.get("phase") == "Failed")
    assert condition(status, "Degraded")["reason"] == "ChildRejected"
    time.sleep(1)
    assert {job: c.raw_sts(job)["metadata"]["generation"] for job in ("ps", "worker")} == before
    assert len(c.pods()) == 3


def test_deleted_child_is_recreated(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    old = wait_for("the client Service", lambda: c.service("example-client"))
    c.core.delete_namespaced_service("example-client", cluster_ns)

    def recreated() -> bool:
        svc = c.service("example-client")
        return svc is not None and svc.metadata.uid != old.metadata.uid

    wait_for("the client Service to come back", recreated, 30)


def test_removed_job_is_pruned(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, cluster_ns)
    body = example()
    body["spec"]["jobs"].append({"name": "evaluator", "replicas": 1})
    c.create(body)
    wait_for("the evaluator StatefulSet", lambda: c.sts("evaluator"))
    c.patch_spec({"jobs": example()["spec"]["jobs"]})
    wait_for("the evaluator StatefulSet to go", lambda: c.sts("evaluator") is None, 30)
    wait_for("the evaluator Service to go", lambda: c.service("example-evaluator") is None, 30)
    status = c.wait_status(
        "clusterSpec without evaluator",
        lambda s: "evaluator" not in s.get("clusterSpec", {"evaluator": 1}),
    )
    assert set(status["clusterSpec"]) == {"ps", "worker"}


def test_deletion_garbage_collects_children(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, cluster_ns)
    c.create(example())
    wait_for("3 pods", lambda: len(c.pods()) == 3)
    assert c.service("example-client") is not None

    c.custom.delete_namespaced_custom_object(GROUP, VERSION, cluster_ns, PLURAL, "example")

    def all_gone() -> bool:
        return (
            not c.apps.list_namespaced_stateful_set(cluster_ns).items
            and not c.core.list_namespaced_service(cluster_ns).items
            and not c.pods()
        )

    wait_for("the garbage collector to delete every child", all_gone, 60)
    # The operator did not bring anything back after the owner went.
    time.sleep(1)
    assert not c.apps.list_namespaced_stateful_set(cluster_ns).items


# ---------------------------------------------------------------------- schema and RBAC


def bad(jobs: Any = None, **spec: Any) -> dict[str, Any]:
    body = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "TFCluster",
        "metadata": {"name": "bad"},
        "spec": {"jobs": [{"name": "worker"}] if jobs is None else jobs, **spec},
    }
    return body


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (bad([{"name": "Worker"}]), "spec.jobs[0].name"),
        (bad([{"name": "1worker"}]), "spec.jobs[0].name"),
        (bad([{"name": "my_worker"}]), "spec.jobs[0].name"),
        (bad([{"name": "worker", "replicas": -1}]), "spec.jobs[0].replicas"),
        (bad(port=0), "spec.port"),
        (bad(port=70000), "spec.port"),
        (bad(metricsPort=65536), "spec.metricsPort"),
        (bad(directPort=0), "spec.directPort"),
        (bad(port=9090), "port and metricsPort must differ"),
        (bad(directPort=2222), "directPort must differ from port and metricsPort"),
        (bad(directPort=9090), "directPort must differ from port and metricsPort"),
        # The default directPort counts too.
        (bad(port=2223), "directPort must differ from port and metricsPort"),
        (
            bad([{"name": "chief", "clientTask": 0}, {"name": "worker", "clientTask": 0}]),
            "at most one job may set clientTask",
        ),
        (bad([{"name": "worker", "replicas": 2, "clientTask": 2}]), "clientTask must be"),
        (bad([{"name": "worker"}, {"name": "worker"}]), "Duplicate value"),
        (bad([]), "spec.jobs"),
        ({**bad(), "spec": {"image": "x"}}, "spec.jobs"),
        (bad(imagePullPolicy="Sometimes"), "spec.imagePullPolicy"),
        (bad([{"name": "worker", "gpus": -1}]), "spec.jobs[0].gpus"),
    ],
)
def test_schema_rejects_bad_tfclusters(
    installed: ApiClient, k8s_namespace: str, body: dict[str, Any], words: str
) -> None:
    custom = client.CustomObjectsApi(installed)
    with pytest.raises(ApiException) as err:
        custom.create_namespaced_custom_object(
            GROUP, VERSION, k8s_namespace, PLURAL, body, dry_run="All"
        )
    assert err.value.status == 422, err.value.body
    assert words in json.loads(err.value.body)["message"]


def test_examples_pass_the_schema(installed: ApiClient, k8s_namespace: str) -> None:
    custom = client.CustomObjectsApi(installed)
    for path in sorted((MANIFESTS / "examples").glob("*.yaml")):
        (doc,) = load_yaml(path)
        made = custom.create_namespaced_custom_object(
            GROUP, VERSION, k8s_namespace, PLURAL, doc, dry_run="All"
        )
        assert made["spec"]["port"] == 2222, path.name


def test_schema_defaults(installed: ApiClient, k8s_namespace: str) -> None:
    custom = client.CustomObjectsApi(installed)
    made = custom.create_namespaced_custom_object(
        GROUP, VERSION, k8s_namespace, PLURAL, bad(), dry_run="All"
    )
    assert made["spec"]["port"] == 2222
    assert made["spec"]["metricsPort"] == 9090
    assert made["spec"]["directPort"] == 2223
    assert made["spec"]["suspend"] is False
    assert made["spec"]["imagePullPolicy"] == "IfNotPresent"
    assert made["spec"]["jobs"] == [{"name": "worker", "replicas": 1, "gpus": 0}]


def test_operator_rbac_is_least_privilege(
    installed: ApiClient, k8s_service_account_client: Callable[[str, str], ApiClient]
) -> None:
    api = k8s_service_account_client(OPERATOR_NS, OPERATOR_SA)
    authz = client.AuthorizationV1Api(api)

    def allowed(verb: str, resource: str, group: str = "", sub: str = "") -> bool:
        review = authz.create_self_subject_access_review(
            {
                "spec": {
                    "resourceAttributes": {
                        "verb": verb,
                        "group": group,
                        "resource": resource,
                        "subresource": sub,
                        "namespace": "anywhere",
                    }
                }
            }
        )
        return bool(review.status.allowed)

    assert allowed("patch", "statefulsets", "apps")
    assert allowed("create", "services")
    assert allowed("watch", "pods")
    assert allowed("patch", "tfclusters", GROUP, "status")
    assert allowed("create", "events") and allowed("patch", "events")
    assert allowed("get", "namespaces")
    assert not allowed("list", "namespaces")
    assert not allowed("list", "customresourcedefinitions", "apiextensions.k8s.io")
    assert not allowed("patch", "tfclusters", GROUP)  # kopf writes nothing on TFClusters
    assert not allowed("get", "pods")  # the watch is enough
    assert not allowed("create", "pods")
    assert not allowed("get", "secrets")
    assert not allowed("create", "tfclusters", GROUP)
    assert not allowed("delete", "tfclusters", GROUP)
    assert not allowed("update", "statefulsets", "apps", "scale")


def test_operator_deployment_manifest_is_accepted(installed: ApiClient) -> None:
    """manifests/operator.yaml passes the API server's validation (server-side dry run)."""
    docs = load_yaml(MANIFESTS / "operator.yaml")
    assert {d["kind"] for d in docs} == {"Deployment", "Service"}
    for doc in docs:
        utils.create_from_dict(installed, doc, dry_run="All")
    (deploy,) = [d for d in docs if d["kind"] == "Deployment"]
    assert deploy["spec"]["replicas"] == 1
    assert deploy["spec"]["strategy"]["type"] == "Recreate"
    pod = deploy["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == OPERATOR_SA
    assert pod["containers"][0]["livenessProbe"]["httpGet"]["path"] == "/healthz"
