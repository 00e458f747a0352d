"""drift: what the operator sets, taken from a live child, and what differs (pure)."""

from __future__ import annotations

import copy
from typing import Any

from tfcluster_operator.builders import OwnerRef, job_service, statefulset
from tfcluster_operator.drift import differences, project, render
from tfcluster_operator.spec import parse_spec

SPEC = parse_spec(
    "demo",
    "team",
    {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 2}]},
    default_image="i:1",
)
OWNER = OwnerRef(name="demo", uid="u-1")


def served(manifest: dict[str, Any]) -> dict[str, Any]:
    """The object as the API server keeps it: defaults added, false left out, status."""
    obj = copy.deepcopy(manifest)
    obj["metadata"].update({"uid": "x", "resourceVersion": "7", "managedFields": []})
    spec = obj["spec"]
    if obj["kind"] == "Service":
        if not spec.get("publishNotReadyAddresses"):
            spec.pop("publishNotReadyAddresses", None)
        spec["sessionAffinity"] = "None"
    else:
        container = spec["template"]["spec"]["containers"][0]
        container["terminationMessagePath"] = container.get(
            "terminationMessagePath", "/dev/termination-log"
        )
        spec["template"]["spec"]["dnsPolicy"] = "ClusterFirst"
        obj["status"] = {"replicas": 2}
    return obj


def drift(live: dict[str, Any], manifest: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return differences(project(live, manifest), project(served(manifest), manifest))


def test_defaults_status_and_others_fields_are_no_drift() -> None:
    manifest = statefulset(SPEC, SPEC.job("worker"), OWNER)
    live = served(manifest)
    live["metadata"]["annotations"] = {"team.example/owner": "ml"}
    live["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"] = "t"
    live["spec"]["template"]["spec"]["containers"][0]["env"].insert(
        0, {"name": "EXTRA", "value": "1"}
    )
    live["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "s"})
    live["status"] = {"replicas": 1, "readyReplicas": 0}
    assert drift(live, manifest) == []


def test_a_changed_value_the_operator_sets_is_drift_named_by_path() -> None:
    manifest = statefulset(SPEC, SPEC.job("worker"), OWNER)
    live = served(manifest)
    live["spec"]["replicas"] = 5
    env = live["spec"]["template"]["spec"]["containers"][0]["env"]
    next(e for e in env if e["name"] == "TFCLUSTER_METRICS_PORT")["value"] = "1234"
    found = drift(live, manifest)
    assert found == [
        ("spec.replicas", 5, 2),
        (
            "spec.template.spec.containers[tfcluster-server].env[TFCLUSTER_METRICS_PORT].value",
            "1234",
            "9090",
        ),
    ]
    assert render(found) == (
        "spec.replicas 5 -> 2, spec.template.spec.containers[tfcluster-server]"
        '.env[TFCLUSTER_METRICS_PORT].value "1234" -> "9090"'
    )


def test_a_false_the_server_leaves_out_reads_as_false() -> None:
    manifest = job_service(SPEC, "worker", OWNER)
    live = served(manifest)
    live["spec"].pop("publishNotReadyAddresses")  # someone set it to false
    found = drift(live, manifest)
    assert found == [("spec.publishNotReadyAddresses", None, True)]
    assert render(found) == "spec.publishNotReadyAddresses false -> true"


def test_removed_entries_and_labels_are_drift() -> None:
    manifest = job_service(SPEC, "worker", OWNER)
    live = served(manifest)
    live["spec"]["ports"] = live["spec"]["ports"][:1]
    del live["metadata"]["labels"]["tfcluster.dev/job"]
    paths = [path for path, _, _ in drift(live, manifest)]
    assert "metadata.labels.tfcluster.dev/job" in paths
    assert "spec.ports[direct]" in paths and "spec.ports[metrics]" in paths


def test_render_keeps_long_lists_short() -> None:
    changes = [(f"spec.x{i}", i, i + 1) for i in range(8)]
    assert render(changes).endswith(", and 3 more")
