"""The Helm chart: its CRD copy, documented values, `helm lint` and `helm template` with a
real helm binary, and the Grafana dashboard's JSON and queries."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from support.operator_manifests import HelmUnavailable, find_helm, helm_template
from tfcluster.task_server.metrics import families as server_metrics
from tfcluster_operator.metrics import OperatorMetrics

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "charts" / "tfcluster-operator"
MANIFESTS = REPO / "manifests"
DASHBOARD = CHART / "dashboards" / "tfcluster.json"


@pytest.fixture(scope="module")
def helm() -> Path:
    try:
        return find_helm()
    except HelmUnavailable as err:
        pytest.skip(f"helm lint/template tests skipped: {err}")


def by_kind(docs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        kinds.setdefault(doc["kind"], []).append(doc)
    return kinds


def manifest_rules() -> list[dict[str, Any]]:
    docs = list(yaml.safe_load_all((MANIFESTS / "rbac.yaml").read_text()))
    (role,) = [d for d in docs if d["kind"] == "ClusterRole"]
    return list(role["rules"])


# ---------------------------------------------------------------------- no helm needed


def test_chart_crd_is_the_manifest_crd() -> None:
    chart_crds = sorted(p.name for p in (CHART / "crds").iterdir())
    assert chart_crds == ["crd.yaml"]
    assert (CHART / "crds" / "crd.yaml").read_bytes() == (MANIFESTS / "crd.yaml").read_bytes(), (
        "charts/tfcluster-operator/crds/crd.yaml drifted from manifests/crd.yaml: "
        "cp manifests/crd.yaml charts/tfcluster-operator/crds/crd.yaml"
    )


def test_every_value_is_documented() -> None:
    lines = (CHART / "values.yaml").read_text().splitlines()
    undocumented = []
    for number, line in enumerate(lines):
        if not re.match(r"^\s*[A-Za-z_][\w-]*:", line):
            continue
        above = lines[number - 1].strip() if number else ""
        if not above.startswith("#"):
            undocumented.append(f"line {number + 1}: {line.strip()}")
    # A parent key whose children are all documented may go without (e.g. `image:`).
    parents = {"serviceAccount:", "rbac:", "metrics:", "service:", "serviceMonitor:"}
    parents |= {"taskPodMonitor:", "dashboard:"}
    missing = [u for u in undocumented if u.split(": ", 1)[1] not in parents]
    assert not missing, "values without a comment above them:\n" + "\n".join(missing)


def test_dashboard_is_grafana_json_querying_real_metrics() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] and dashboard["title"]
    assert isinstance(dashboard["schemaVersion"], int)
    panels = dashboard["panels"]
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids))
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    assert {"datasource", "namespace", "tf_job"} <= variables
    # The metric names the operator really exposes (prometheus-client's own text format).
    registry = CollectorRegistry()
    metrics = OperatorMetrics(registry)
    metrics.reconciles.labels("success").inc()
    metrics.reconcile_errors.labels("prune").inc()
    metrics.observe(
        "ns", "c", {"phase": "Running", "jobs": [{"name": "w", "desired": 1, "ready": 1}]}
    )
    exposed = {
        sample.name
        for family in text_string_to_metric_families(generate_latest(registry).decode())
        for sample in family.samples
    }
    # And the task servers' (tests/unit/test_server_metrics.py checks this list against a
    # live server's /metrics).
    exposed |= server_metrics.sample_names()
    queries = [t["expr"] for p in panels if p["type"] != "row" for t in p["targets"]]
    queries += [v["definition"] for v in dashboard["templating"]["list"] if "definition" in v]
    assert queries
    for panel in panels:
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert panel["datasource"]["uid"] == "${datasource}"
            assert {"x", "y", "w", "h"} <= set(panel["gridPos"])
    for query in queries:
        names = set(re.findall(r"\btfcluster_[a-z0-9_]+", query))
        assert names, f"no tfcluster metric in {query!r}"
        assert names <= exposed, f"{query!r} names {names - exposed}, which no code exposes"


# ---------------------------------------------------------------------- helm


def test_helm_lint(helm: Path) -> None:
    done = subprocess.run(
        [str(helm), "lint", "--strict", str(CHART)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in done.stdout


def test_helm_template_defaults(helm: Path) -> None:
    kinds = by_kind(helm_template(helm, CHART))
    assert sorted(kinds) == [
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
        "Service",
        "ServiceAccount",
    ]
    (role,) = kinds["ClusterRole"]
    assert role["rules"] == manifest_rules(), "the chart's RBAC drifted from manifests/rbac.yaml"
    (binding,) = kinds["ClusterRoleBinding"]
    (sa,) = kinds["ServiceAccount"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": sa["metadata"]["name"], "namespace": "tfcluster-system"}
    ]
    (deploy,) = kinds["Deployment"]
    assert deploy["spec"]["replicas"] == 1
    assert deploy["spec"]["strategy"] == {"type": "Recreate"}
    pod = deploy["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == sa["metadata"]["name"]
    (container,) = pod["containers"]
    assert container["image"] == "tfcluster:0.1.0"
    assert container["command"] == ["tfcluster-operator"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["TFCLUSTER_OPERATOR_DEFAULT_IMAGE"] == "tfcluster:0.1.0"
    assert env["TFCLUSTER_OPERATOR_NAMESPACES"] == ""
    assert env["TFCLUSTER_OPERATOR_METRICS_PORT"] == "8080"
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"metrics": 8080, "health": 8081}
    (svc,) = kinds["Service"]
    assert svc["spec"]["ports"][0]["targetPort"] == "metrics"
    assert (
        svc["spec"]["selector"].items() <= deploy["spec"]["template"]["metadata"]["labels"].items()
    )


def test_helm_template_namespaced_monitors_dashboard(helm: Path) -> None:
    docs = helm_template(
        helm,
        CHART,
        "--set",
        "watchNamespaces={team-a,team-b}",
        "--set",
        "metrics.serviceMonitor.enabled=true",
        "--set",
        "metrics.taskPodMonitor.enabled=true",
        "--set",
        "dashboard.enabled=true",
        "--set",
        "image.tag=9.9.9",
        "--set",
        "taskImage=tasks:1",
    )
    kinds = by_kind(docs)
    # Namespace-scoped RBAC: a Role and its RoleBinding per watched namespace, with the
    # manifests' rules, and nothing cluster-wide.
    assert "ClusterRole" not in kinds and "ClusterRoleBinding" not in kinds
    roles, bindings = kinds["Role"], kinds["RoleBinding"]
    assert sorted(r["metadata"]["namespace"] for r in roles) == ["team-a", "team-b"]
    assert sorted(b["metadata"]["namespace"] for b in bindings) == ["team-a", "team-b"]
    (sa,) = kinds["ServiceAccount"]
    for role, binding in zip(roles, bindings, strict=True):
        assert role["rules"] == manifest_rules()
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": role["metadata"]["name"],
        }
        assert binding["subjects"] == [
            {
                "kind": "ServiceAccount",
                "name": sa["metadata"]["name"],
                "namespace": "tfcluster-system",
            }
        ]
    (deploy,) = kinds["Deployment"]
    (container,) = deploy["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["TFCLUSTER_OPERATOR_NAMESPACES"] == "team-a,team-b"
    assert env["TFCLUSTER_OPERATOR_DEFAULT_IMAGE"] == "tasks:1"
    assert container["image"] == "tfcluster:9.9.9"
    (monitor,) = kinds["ServiceMonitor"]
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    (pods,) = kinds["PodMonitor"]
    assert pods["spec"]["namespaceSelector"] == {"matchNames": ["team-a", "team-b"]}
    assert pods["spec"]["selector"]["matchLabels"]["app.kubernetes.io/managed-by"] == (
        "tfcluster-operator"
    )
    assert pods["spec"]["podMetricsEndpoints"][0]["port"] == "metrics"
    (dashboard,) = kinds["ConfigMap"]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(dashboard["data"]["tfcluster.json"]) == json.loads(DASHBOARD.read_text())


def test_helm_template_metrics_off(helm: Path) -> None:
    kinds = by_kind(helm_template(helm, CHART, "--set", "metrics.enabled=false"))
    assert "Service" not in kinds
    (deploy,) = kinds["Deployment"]
    (container,) = deploy["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["TFCLUSTER_OPERATOR_METRICS_PORT"] == "0"
    assert [p["name"] for p in container["ports"]] == ["health"]


def test_dashboard_queries_are_promql_and_cover_every_task_panel() -> None:
    promql = pytest.importorskip("promql_parser")  # in the dev extra
    dashboard = json.loads(DASHBOARD.read_text())
    panels = [p for p in dashboard["panels"] if p["type"] != "row"]
    for panel in panels:
        for t in panel["targets"]:
            promql.parse(t["expr"].replace("$__rate_interval", "5m"))
    with pytest.raises(ValueError):
        promql.parse("sum(rate(tfcluster_errors_total[5m])")  # the parser does reject
    exprs = {p["title"]: " ".join(t["expr"] for t in p["targets"]) for p in panels}

    def panel_querying(metric: str) -> str:
        return next(title for title, expr in exprs.items() if metric in expr)

    # Per task: step rate, step latency p50/p99, transfer rate, errors by code.
    assert (
        "rate(tfcluster_master_step_seconds_count"
        in exprs[panel_querying("tfcluster_master_step_seconds_count")]
    )
    latency = exprs[panel_querying("tfcluster_master_step_seconds_bucket")]
    assert "histogram_quantile(0.5," in latency and "histogram_quantile(0.99," in latency
    assert "rate(" in exprs[panel_querying("tfcluster_worker_recv_tensor_bytes_total")]
    assert "code" in exprs[panel_querying("tfcluster_errors_total")]
    for expr in exprs.values():
        if "tfcluster_master_" in expr or "tfcluster_worker_" in expr:
            assert "tf_task" in expr, expr  # one series per task
