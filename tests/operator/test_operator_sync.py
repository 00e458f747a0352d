"""Reconciler.sync against an in-memory API server (the k8s tests run the real one): what a
sync asks of the API in each situation, since every event of a TFCluster runs one."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from prometheus_client import CollectorRegistry
from tfcluster_operator.children import Children
from tfcluster_operator.config import OperatorConfig
from tfcluster_operator.kube import KubeError
from tfcluster_operator.metrics import OperatorMetrics
from tfcluster_operator.reconcile import MAX_RETRY_DELAY, RETRY_DELAY, Reconciler
from tfcluster_operator.status import condition

NS, NAME, UID = "team", "demo", "uid-1"


class Api:
    """The calls the reconciler makes, answered from a dict of stored objects; every call
    is logged. ``refuse`` makes the API server reject one child; ``down`` fails them all."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls: list[str] = []
        self.status: dict[str, Any] = {}
        self.refuse: str | None = None
        self.down = False
        self.terminating = False
        self.tfcluster: dict[str, Any] | None = None
        self._version = 0

    def _rv(self) -> str:
        self._version += 1
        return str(self._version)

    def apply(self, manifest: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        kind, name = manifest["kind"], manifest["metadata"]["name"]
        self.calls.append(f"{'dry-run' if dry_run else 'apply'} {kind} {name}")
        if self.down:
            raise KubeError(f"apply {kind} {name}", 503, "the server is unavailable")
        if self.terminating:
            raise KubeError(
                "apply", 403, "because it is being terminated", ("NamespaceTerminating",)
            )
        if self.refuse == name:
            raise KubeError(f"apply {kind} {name}", 422, f'{kind} "{name}" is invalid: no')
        stored = self.objects.get((kind, name))
        if dry_run:
            return copy.deepcopy(manifest)
        obj = copy.deepcopy(manifest)
        obj["metadata"]["uid"] = stored["metadata"]["uid"] if stored else f"uid-{name}"
        same = (
            stored is not None
            and {k: v for k, v in stored.items() if k != "metadata"}
            == {k: v for k, v in obj.items() if k != "metadata"}
            and stored["metadata"].get("labels") == obj["metadata"].get("labels")
        )
        obj["metadata"]["resourceVersion"] = (
            stored["metadata"]["resourceVersion"] if same and stored else self._rv()
        )
        self.objects[(kind, name)] = obj
        return copy.deepcopy(obj)

    def delete(self, kind: str, namespace: str, name: str) -> bool:
        self.calls.append(f"delete {kind} {name}")
        return self.objects.pop((kind, name), None) is not None

    def get_tfcluster(self, namespace: str, name: str) -> dict[str, Any] | None:
        self.calls.append("get TFCluster")
        return self.tfcluster

    def namespace_terminating(self, namespace: str) -> bool:
        self.calls.append("get Namespace")
        return self.terminating

    def patch_tfcluster_status(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        self.calls.append("patch status")
        for key, value in patch.items():
            if value is None:
                self.status.pop(key, None)
            else:
                self.status[key] = value

    def create_event(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(f"event {body['reason']}")
        return {"metadata": {"name": f"e{len(self.calls)}"}}

    def patch_event(self, namespace: str, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("event count")
        return {}

    def children(self) -> Children:
        """What the watches would show: every stored object."""
        return Children.of(
            statefulsets=[o for (k, _), o in self.objects.items() if k == "StatefulSet"],
            services=[o for (k, _), o in self.objects.items() if k == "Service"],
        )

    def take(self) -> list[str]:
        calls, self.calls = self.calls, []
        return calls


def tfcluster(jobs: list[dict[str, Any]] | None = None, generation: int = 1) -> dict[str, Any]:
    return {
        "metadata": {"name": NAME, "namespace": NS, "uid": UID, "generation": generation},
        "spec": {"jobs": jobs or [{"name": "ps"}, {"name": "worker", "replicas": 2}]},
        "status": {},
    }


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def api() -> Api:
    return Api()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def reconciler(api: Api, clock: Clock) -> Reconciler:
    return Reconciler(
        api,  # type: ignore[arg-type]
        OperatorConfig(),
        OperatorMetrics(CollectorRegistry()),
        clock=clock,
    )


CHILDREN = [
    "Service demo-ps",
    "Service demo-worker",
    "StatefulSet demo-ps",
    "StatefulSet demo-worker",
    "Service demo-client",
]


def test_a_new_cluster_is_validated_whole_then_created(api: Api, reconciler: Reconciler) -> None:
    reconciler.sync(tfcluster(), Children())
    calls = api.take()
    writes = [c for c in calls if c.startswith(("dry-run", "apply"))]
    assert writes == [f"dry-run {c}" for c in CHILDREN] + [f"apply {c}" for c in CHILDREN]
    assert calls.count("event Created") == 5 and "patch status" in calls


def test_a_sync_with_nothing_changed_asks_nothing(api: Api, reconciler: Reconciler) -> None:
    body = tfcluster()
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    api.take()
    for _ in range(3):
        reconciler.sync(body, api.children())
    assert api.take() == []


def test_a_rejected_child_creates_nothing_and_is_not_retried(
    api: Api, reconciler: Reconciler
) -> None:
    api.refuse = "demo-worker"
    result = reconciler.sync(tfcluster(), Children())
    assert not [c for c in api.take() if c.startswith("apply")]
    assert result.status is not None and result.status["phase"] == "Failed"
    degraded = condition(result.status, "Degraded")
    assert degraded is not None and degraded["reason"] == "ChildRejected"
    assert "(422)" in degraded["message"] and result.retry_after is None
    body = tfcluster()
    body["status"] = copy.deepcopy(api.status)
    reconciler.sync(body, Children())  # the same spec: nothing asked again
    assert api.take() == []
    api.refuse = None
    reconciler.sync(tfcluster(generation=2, jobs=[{"name": "worker", "replicas": 3}]), Children())
    assert "apply StatefulSet demo-worker" in api.take()


def test_drift_is_applied_back_with_an_event_naming_it(api: Api, reconciler: Reconciler) -> None:
    body = tfcluster()
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    api.take()
    api.objects[("StatefulSet", "demo-worker")]["spec"]["replicas"] = 5
    api.objects[("StatefulSet", "demo-worker")]["metadata"]["resourceVersion"] = "99"
    reconciler.sync(body, api.children())
    assert api.take() == ["apply StatefulSet demo-worker", "event DriftReverted"]
    assert api.objects[("StatefulSet", "demo-worker")]["spec"]["replicas"] == 2


def test_a_deleted_child_is_recreated_once_its_owner_and_namespace_are_checked(
    api: Api, reconciler: Reconciler
) -> None:
    body = tfcluster()
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    api.tfcluster = copy.deepcopy(body)
    api.take()
    del api.objects[("Service", "demo-client")]
    # Not seen deleted yet (the watch lags behind the apply): nothing to do.
    reconciler.sync(body, api.children())
    assert api.take() == []
    reconciler.note_deleted((NS, NAME), "Service", "demo-client")
    reconciler.sync(body, api.children())
    assert api.take() == [
        "get Namespace",
        "get TFCluster",
        "apply Service demo-client",
        "event count",  # "Created Service demo-client" again: the first event counts up
    ]


def test_nothing_is_attempted_in_a_namespace_being_deleted(
    api: Api, reconciler: Reconciler
) -> None:
    body = tfcluster()
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    api.take()
    api.terminating = True
    for kind, name in (("Service", "demo-client"), ("StatefulSet", "demo-ps")):
        del api.objects[(kind, name)]
        reconciler.note_deleted((NS, NAME), kind, name)
    for _ in range(3):
        assert reconciler.sync(body, api.children()).status is None
    assert api.take() == ["get Namespace"]  # asked once, remembered


def test_api_trouble_is_degraded_and_retried_with_a_back_off(
    api: Api, reconciler: Reconciler, clock: Clock
) -> None:
    api.down = True
    result = reconciler.sync(tfcluster(), Children())
    assert result.status is not None and result.status["phase"] == "Degraded"
    degraded = condition(result.status, "Degraded")
    assert degraded is not None and degraded["reason"] == "ReconcileError"
    assert "(503)" in degraded["message"]
    assert result.retry_after == pytest.approx(RETRY_DELAY)
    api.take()
    # Events before the retry is due do not hammer the API server.
    assert reconciler.sync(tfcluster(), Children()).retry_after is not None
    assert [c for c in api.take() if "apply" in c or "dry-run" in c] == []
    delays = []
    for _ in range(6):
        clock.now += MAX_RETRY_DELAY
        delays.append(reconciler.sync(tfcluster(), Children()).retry_after)
    assert delays[-1] == pytest.approx(MAX_RETRY_DELAY)
    api.down = False
    clock.now += MAX_RETRY_DELAY
    result = reconciler.sync(tfcluster(), Children())
    assert result.retry_after is None
    degraded = condition(result.status or {}, "Degraded")
    assert degraded is not None and degraded["status"] == "False"


def test_a_removed_job_is_pruned(api: Api, reconciler: Reconciler) -> None:
    body = tfcluster(jobs=[{"name": "ps"}, {"name": "worker"}, {"name": "eval"}])
    reconciler.sync(body, Children())
    for obj in api.objects.values():
        obj["metadata"]["ownerReferences"] = [{"uid": UID}]
    api.take()
    reconciler.sync(tfcluster(generation=2), api.children())
    calls = api.take()
    assert "delete Service demo-eval" in calls and "delete StatefulSet demo-eval" in calls


def test_pods_going_away_cost_one_look_at_the_namespace_not_one_per_sync(
    api: Api, reconciler: Reconciler, clock: Clock
) -> None:
    """A rolling update deletes pods: the namespace is asked about once, not forever after."""
    body = tfcluster()
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    api.take()
    reconciler.note_deleted((NS, NAME), "Pod", "demo-worker-0")
    reconciler.sync(body, api.children())
    assert api.take() == ["get Namespace"]
    for _ in range(3):
        clock.now += 60
        reconciler.sync(body, api.children())
    assert api.take() == []
