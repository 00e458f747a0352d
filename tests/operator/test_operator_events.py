"""EventRecorder: the same event again counts on the first one (as `kubectl describe` shows,
"x3 over 5m"); a new message is a new event; an expired one is posted afresh; a namespace
being deleted is reported, not logged as a failure."""

from __future__ import annotations

from typing import Any

from tfcluster_operator.events import TTL_SECONDS, EventRecorder
from tfcluster_operator.kube import KubeError

OWNER = {"metadata": {"name": "demo", "namespace": "team", "uid": "u-1"}}


class EventsApi:
    """What the recorder asks of the API server: create and patch core/v1 Events."""

    def __init__(self) -> None:
        self.events: dict[str, dict[str, Any]] = {}
        self.fail_with: KubeError | None = None

    def create_event(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.fail_with is not None:
            raise self.fail_with
        name = f"{body['metadata']['generateName']}{len(self.events)}"
        self.events[name] = {**body, "metadata": {**body["metadata"], "name": name}}
        return self.events[name]

    def patch_event(self, namespace: str, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        if name not in self.events:
            raise KubeError(f"patch Event {name}", 404, "not found")
        self.events[name].update(patch)
        return self.events[name]


def recorder(api: EventsApi, clock: list[float], terminating: list[str]) -> EventRecorder:
    return EventRecorder(
        api,  # type: ignore[arg-type]
        "tfcluster-operator",
        on_namespace_terminating=terminating.append,
        clock=lambda: clock[0],
    )


def test_the_same_event_counts_up_and_a_new_one_is_new() -> None:
    api, clock, terminating = EventsApi(), [0.0], []
    events = recorder(api, clock, terminating)
    for _ in range(3):
        events.post(OWNER, "Warning", "CrashLoopBackOff", "ps crashed")
    events.post(OWNER, "Warning", "CrashLoopBackOff", "ps crashed differently")
    counts = sorted((e["message"], e["count"]) for e in api.events.values())
    assert counts == [("ps crashed", 3), ("ps crashed differently", 1)]
    first = next(e for e in api.events.values() if e["message"] == "ps crashed")
    assert first["involvedObject"] == {
        "apiVersion": "tfcluster.dev/v1alpha1",
        "kind": "TFCluster",
        "name": "demo",
        "namespace": "team",
        "uid": "u-1",
    }


def test_an_event_gone_from_the_server_or_too_old_is_posted_afresh() -> None:
    api, clock, terminating = EventsApi(), [0.0], []
    events = recorder(api, clock, terminating)
    events.post(OWNER, "Normal", "Created", "Created Service demo-ps")
    api.events.clear()  # the API server's event TTL
    events.post(OWNER, "Normal", "Created", "Created Service demo-ps")
    assert [e["count"] for e in api.events.values()] == [1]
    clock[0] = TTL_SECONDS + 1
    events.post(OWNER, "Normal", "Created", "Created Service demo-ps")
    assert sorted(e["count"] for e in api.events.values()) == [1, 1]


def test_a_namespace_being_deleted_is_reported_to_the_caller() -> None:
    api, clock, terminating = EventsApi(), [0.0], []
    events = recorder(api, clock, terminating)
    api.fail_with = KubeError(
        "create Event",
        403,
        'events "demo.1" is forbidden: unable to create new content in namespace team '
        "because it is being terminated",
        ("NamespaceTerminating",),
    )
    events.post(OWNER, "Normal", "PhaseRunning", "phase Pending -> Running")
    assert terminating == ["team"]
