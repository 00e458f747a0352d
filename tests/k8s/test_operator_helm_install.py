"""The Helm chart against the real API server: what `helm template` renders is accepted,
and the operator works under the RBAC the chart grants (its own ServiceAccount)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
from kubernetes import client, utils  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from support.k8s_control_plane import ControlPlane  # noqa: E402
from support.k8s_control_plane.controlplane import free_port  # noqa: E402
from support.operator_manifests import HelmUnavailable, find_helm, helm_template  # noqa: E402
from support.operator_on_k8s import (  # noqa: E402
    CHART,
    Cluster,
    Operator,
    apply_manifests,
    example,
    running,
    running_operator,
    wait_established,
    wait_for,
)

pytestmark = pytest.mark.k8s

RELEASE_NS = "tfc-chart"


@pytest.fixture(scope="module")
def rendered(k8s_api_client: ApiClient) -> list[dict[str, Any]]:
    try:
        helm = find_helm()
    except HelmUnavailable as err:
        pytest.skip(f"chart tests against the API server skipped: {err}")
    return helm_template(helm, CHART, namespace=RELEASE_NS)


@pytest.fixture(scope="module")
def chart_operator(
    rendered: list[dict[str, Any]],
    k8s_api_client: ApiClient,
    k8s_control_plane: ControlPlane,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Operator]:
    """The chart's CRD (crds/), ServiceAccount and RBAC installed; the operator as that
    ServiceAccount (the Deployment itself cannot run: no kubelet)."""
    apply_manifests(k8s_api_client, CHART / "crds" / "crd.yaml")
    wait_established(k8s_api_client)
    core = client.CoreV1Api(k8s_api_client)
    if RELEASE_NS not in {n.metadata.name for n in core.list_namespace().items}:
        core.create_namespace({"metadata": {"name": RELEASE_NS}})
    for doc in rendered:
        if doc["kind"] in ("ServiceAccount", "ClusterRole", "ClusterRoleBinding"):
            utils.create_from_dict(k8s_api_client, doc)
    (sa,) = [d for d in rendered if d["kind"] == "ServiceAccount"]
    workdir = tmp_path_factory.mktemp("chart-operator")
    kubeconfig = k8s_control_plane.service_account_kubeconfig(
        RELEASE_NS, sa["metadata"]["name"], workdir / "operator.kubeconfig"
    )
    with running_operator(kubeconfig, workdir, free_port) as op:
        yield op


def test_rendered_chart_is_accepted_by_the_api_server(
    rendered: list[dict[str, Any]], k8s_api_client: ApiClient
) -> None:
    core = client.CoreV1Api(k8s_api_client)
    if RELEASE_NS not in {n.metadata.name for n in core.list_namespace().items}:
        core.create_namespace({"metadata": {"name": RELEASE_NS}})
    kinds = set()
    for doc in rendered:
        utils.create_from_dict(k8s_api_client, doc, dry_run="All")
        kinds.add(doc["kind"])
    assert {"Deployment", "ServiceAccount", "ClusterRole", "ClusterRoleBinding"} <= kinds


def test_operator_runs_under_the_charts_rbac(
    chart_operator: Operator, k8s_namespace: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, k8s_namespace)
    c.create(example())
    status = c.drive_until("Running", running)
    assert status["endpoint"] == f"grpc://example-client.{k8s_namespace}.svc:2222"
    assert status["ready"] == "ps 1/1, worker 2/2"
    assert c.service("example-client") is not None
    wait_for(
        "the reconcile metric",
        lambda: chart_operator.metric("tfcluster_operator_reconciles_total", result="success") >= 1,
        10,
    )
    assert chart_operator.process.poll() is None
