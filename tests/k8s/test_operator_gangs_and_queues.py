"""Gang scheduling and Kueue against the real API server, with the real CRDs of
scheduler-plugins, Volcano and Kueue installed from their release Go modules
(support/third_party_crds.py): the operator's PodGroups and Workload are validated by those
schemas as it applies them. No gang scheduler and no Kueue controller run here: the tests
check the objects the schedulers read, and play Kueue's side of the Workload (admission,
eviction) as Kueue's scheduler writes it."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
from kubernetes import client  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.operator_on_k8s import Operator, condition, example, wait_for  # noqa: E402
from support.operator_runs import KUEUE, Kueue, Run, phase, run_spec  # noqa: E402

pytestmark = pytest.mark.k8s


@pytest.fixture(scope="module", autouse=True)
def crds(third_party_crds: list[str] | None) -> list[str]:
    if third_party_crds is None:
        pytest.skip("the PodGroup and Kueue CRDs could not be fetched from their Go modules")
    return third_party_crds


@pytest.fixture
def priority_class(k8s_api_client: ApiClient) -> Iterator[str]:
    scheduling = client.SchedulingV1Api(k8s_api_client)
    name = f"tf-high-{uuid.uuid4().hex[:6]}"
    scheduling.create_priority_class({"metadata": {"name": name}, "value": 1000})
    yield name
    scheduling.delete_priority_class(name)


def custom(api: ApiClient, group: str, version: str, ns: str, plural: str, name: str) -> Any:
    try:
        return client.CustomObjectsApi(api).get_namespaced_custom_object(
            group, version, ns, plural, name
        )
    except ApiException as err:
        if err.status == 404:
            return None
        raise


# ---------------------------------------------------------------------- gangs


def test_coscheduling_podgroup_holds_every_task_and_the_pods_name_it(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    body = example()
    body["spec"]["scheduling"] = {"gang": "Coscheduling", "scheduleTimeoutSeconds": 120}
    body["spec"]["jobs"][0]["podDisruptionBudget"] = {"maxUnavailable": 0}
    c = Run(k8s_api_client, cluster_ns, "example")
    c.create(body)
    group = wait_for(
        "the PodGroup",
        lambda: custom(
            k8s_api_client, "scheduling.x-k8s.io", "v1alpha1", cluster_ns, "podgroups", "example"
        ),
    )
    # As applied, nothing pruned by the real schema: every field the operator sets is one
    # the coscheduling plugin reads.
    assert group["spec"] == {"minMember": 3, "scheduleTimeoutSeconds": 120}
    assert group["metadata"]["ownerReferences"][0]["kind"] == "TFCluster"
    pods = wait_for("3 pods", lambda: c.pods_if(3))
    for pod in pods:
        assert pod.metadata.labels["scheduling.x-k8s.io/pod-group"] == "example"
        assert pod.spec.scheduler_name == "scheduler-plugins-scheduler"
    budget = client.PolicyV1Api(k8s_api_client).read_namespaced_pod_disruption_budget(
        "example-ps", cluster_ns
    )
    assert budget.spec.max_unavailable == 0
    assert budget.spec.selector.match_labels == {
        "tfcluster.dev/cluster": "example",
        "tfcluster.dev/job": "ps",
    }
    # Scheduling off: the PodGroup goes, and the pods roll without the marks.
    c.patch_spec({"scheduling": None})
    wait_for(
        "the PodGroup pruned",
        lambda: (
            custom(
                k8s_api_client,
                "scheduling.x-k8s.io",
                "v1alpha1",
                cluster_ns,
                "podgroups",
                "example",
            )
            is None
        ),
        30,
    )


def test_volcano_podgroup_of_a_run_carries_queue_and_priority(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient, priority_class: str
) -> None:
    body = run_spec()
    body["spec"]["scheduling"] = {
        "gang": "Volcano",
        "queue": "training",
        "priorityClassName": priority_class,
    }
    run = Run(k8s_api_client, cluster_ns)
    run.create(body)
    group = wait_for(
        "the PodGroup",
        lambda: custom(
            k8s_api_client, "scheduling.volcano.sh", "v1beta1", cluster_ns, "podgroups", "run"
        ),
    )
    assert group["spec"] == {
        "minMember": 3,
        "queue": "training",
        "priorityClassName": priority_class,
    }
    pods = wait_for("3 pods", lambda: run.pods_if(3))
    for pod in pods:
        assert pod.metadata.annotations["scheduling.k8s.io/group-name"] == "run"
        assert pod.spec.scheduler_name == "volcano"
        assert pod.spec.priority_class_name == priority_class and pod.spec.priority == 1000


# ---------------------------------------------------------------------- Kueue


def test_a_queued_run_waits_for_admission_gives_quota_back_when_evicted_and_finishes(
    operator: Operator, cluster_ns: str, k8s_api_client: ApiClient
) -> None:
    body = run_spec()
    body["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "team-queue"}
    run = Run(k8s_api_client, cluster_ns)
    run.create(body)
    kueue = Kueue(k8s_api_client, cluster_ns, "tfcluster-run")
    workload = wait_for(
        "the Workload",
        lambda: custom(k8s_api_client, *KUEUE, cluster_ns, "workloads", "tfcluster-run"),
    )
    assert workload["spec"]["queueName"] == "team-queue"
    assert [(s["name"], s["count"]) for s in workload["spec"]["podSets"]] == [
        ("ps", 1),
        ("worker", 2),
    ]
    template = workload["spec"]["podSets"][1]["template"]
    assert template["spec"]["containers"][0]["command"] == ["python", "/app/train.py"]
    assert workload["metadata"]["ownerReferences"][0]["name"] == "run"
    # Suspended until admitted: the Jobs exist, no pod does.
    status = run.wait_status(
        "waiting for admission", lambda s: s.get("reason") == "WaitingForAdmission"
    )
    assert status["phase"] == "Suspended"
    assert wait_for("the worker Job", lambda: run.job("worker")).spec.suspend is True
    time.sleep(1)
    assert not run.pods()

    kueue.admit()
    wait_for("3 pods once admitted", lambda: run.pods_if(3), 60)
    run.drive("Running", phase("Running"))

    kueue.evict()
    run.wait_status("evicted", lambda s: s.get("reason") == "Evicted")
    wait_for("the pods gone", lambda: not run.pods(), 60)
    released = wait_for(
        "the quota given back",
        lambda: (
            (w := kueue.get())["status"].get("admission") is None
            and kueue.condition("QuotaReserved").get("status") == "False"
            and w
        ),
        30,
    )
    assert kueue.condition("Admitted")["status"] == "False"
    assert released["spec"]["queueName"] == "team-queue"

    kueue.clear_eviction()
    kueue.admit()
    wait_for("3 pods once admitted again", lambda: run.pods_if(3), 60)
    run.drive("Running again", phase("Running"))
    run.exit("worker", 0, 0)
    status = run.wait_status("Succeeded", phase("Succeeded"))
    assert condition(status, "Succeeded")["status"] == "True"
    finished = wait_for(
        "the Workload Finished",
        lambda: kueue.condition("Finished").get("status") == "True" and kueue.condition("Finished"),
        60,
    )
    assert finished["reason"] == "Succeeded"
