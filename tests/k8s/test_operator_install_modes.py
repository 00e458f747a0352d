"""Every way to install the operator, each run with exactly the RBAC it grants: the
manifests (cluster-wide ClusterRole) and the chart, cluster-wide or for `watchNamespaces`
(a Role and a RoleBinding per namespace, nothing cluster-wide). In each, the operator
serves at once (a TFCluster that was waiting is built within 2 s of the operator's first
request), is never refused anything, and uses every permission it is given."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
from kubernetes import client, utils  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.cert_manager import CRD_NAME as CERTIFICATE_CRD  # noqa: E402
from support.cert_manager import certificate  # noqa: E402
from support.k8s_control_plane import ControlPlane  # noqa: E402
from support.k8s_control_plane.controlplane import free_port  # noqa: E402
from support.kubectl import Kubectl  # noqa: E402
from support.operator_manifests import HelmUnavailable, find_helm, helm_template  # noqa: E402
from support.operator_on_k8s import (  # noqa: E402
    CHART,
    MANIFESTS,
    OPERATOR_NS,
    OPERATOR_SA,
    Cluster,
    describe_request,
    example,
    load_yaml,
    requests_of,
    running,
    running_operator,
    service_account_user,
    wait_for,
)
from support.operator_runs import Kueue, Run, phase, run_spec  # noqa: E402

pytestmark = pytest.mark.k8s

SERVE_SECONDS = 2.0
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
# Granted but never a request of its own: a server-side apply that creates an object is a
# patch, authorised as create too; the OwnerReferencesPermissionEnforcement admission plugin
# checks the finalizers grant when an owner reference blocks deletion (off in this plane).
NOT_A_REQUEST = {
    ("create", "statefulsets"),
    ("create", "services"),
    ("create", "secrets"),
    ("create", "networkpolicies"),
    ("create", "certificates"),
    ("create", "jobs"),
    ("create", "poddisruptionbudgets"),
    ("create", "podgroups"),
    ("create", "workloads"),
    ("update", "tfclusters/finalizers"),
}
# Granted for the PodGroups and Kueue's Workloads: used only where their CRDs are installed.
THIRD_PARTY = {
    (verb, resource)
    for verb in ("list", "watch", "patch", "delete")
    for resource in ("podgroups", "workloads", "workloads/status")
}


@dataclass
class Install:
    rbac: list[dict[str, Any]]  # the RBAC documents, as installed
    namespace: str  # the ServiceAccount's
    account: str

    def granted(self) -> set[tuple[str, str]]:
        return {
            (verb, resource)
            for doc in self.rbac
            if doc["kind"] in ("ClusterRole", "Role")
            for rule in doc["rules"]
            for resource in rule["resources"]
            for verb in rule["verbs"]
        }


def fresh_namespace(core: client.CoreV1Api, prefix: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    core.create_namespace({"metadata": {"name": name}})
    return name


@pytest.fixture
def namespaces(k8s_api_client: ApiClient) -> Iterator[Callable[[str], str]]:
    core = client.CoreV1Api(k8s_api_client)
    made: list[str] = []

    def make(prefix: str) -> str:
        made.append(fresh_namespace(core, prefix))
        return made[-1]

    yield make
    for name in made:
        try:
            core.delete_namespace(name)
        except ApiException as err:
            if err.status != 404:
                raise


def install(
    source: str, watched: list[str], api: ApiClient, make_namespace: Callable[[str], str]
) -> Install:
    """Create the CRD and the ServiceAccount and RBAC of ``source`` (manifests or chart)."""
    if source == "manifests":
        docs = [
            d for p in ("crd.yaml", "namespace.yaml", "rbac.yaml") for d in load_yaml(MANIFESTS / p)
        ]
        namespace, account = OPERATOR_NS, OPERATOR_SA
    else:
        try:
            helm = find_helm()
        except HelmUnavailable as err:
            pytest.skip(f"chart install skipped: {err}")
        namespace = make_namespace("tfc-release")
        values = ["--set", "watchNamespaces={" + ",".join(watched) + "}"] if watched else []
        rendered = helm_template(
            helm, CHART, *values, namespace=namespace, release=f"r{uuid.uuid4().hex[:6]}"
        )
        kinds = {d["kind"] for d in rendered}
        # The chart's RBAC follows the mode: nothing cluster-wide for watchNamespaces.
        if watched:
            assert {"Role", "RoleBinding"} <= kinds and not {
                "ClusterRole",
                "ClusterRoleBinding",
            } & kinds
        else:
            assert {"ClusterRole", "ClusterRoleBinding"} <= kinds and not {
                "Role",
                "RoleBinding",
            } & kinds
        docs = load_yaml(CHART / "crds" / "crd.yaml") + [
            d for d in rendered if d["kind"] in RBAC_KINDS
        ]
        (sa,) = [d for d in rendered if d["kind"] == "ServiceAccount"]
        account = sa["metadata"]["name"]
    for doc in docs:
        try:
            utils.create_from_dict(api, doc)
        except utils.FailToCreateError as err:
            if any(e.status != 409 for e in err.api_exceptions):
                raise
    return Install([d for d in docs if d["kind"] in RBAC_KINDS], namespace, account)


def wait_authorized(api: ApiClient, namespace: str) -> None:
    """RBAC takes effect when the authorizer's cache has the new bindings."""
    authz = client.AuthorizationV1Api(api)

    def allowed() -> bool:
        review = authz.create_self_subject_access_review(
            {
                "spec": {
                    "resourceAttributes": {
                        "verb": "watch",
                        "group": "tfcluster.dev",
                        "resource": "tfclusters",
                        "namespace": namespace,
                    }
                }
            }
        )
        return bool(review.status.allowed)

    wait_for("the operator's RBAC to take effect", allowed, 30)


def first_apply(events: list[dict[str, Any]], namespace: str) -> dict[str, Any] | None:
    for event in events:
        ref = event.get("objectRef") or {}
        if (
            event["verb"] == "patch"
            and ref.get("namespace") == namespace
            and ref.get("resource") in ("services", "statefulsets")
            and "dryRun" not in event.get("requestURI", "")
        ):
            return event
    return None


def a_run_to_its_end(api: ApiClient, namespace: str, *, queued: bool) -> None:
    """A run on an ordinary day: queued in Kueue (when its CRDs are there) with a gang and a
    budget for its ps, admitted, trained, its Workload finished, everything it made gone
    (cleanPodPolicy All), and the TFCluster itself after its TTL."""
    # A TTL long enough for the status poll to see Succeeded before the run is deleted.
    body = run_spec(cleanPodPolicy="All", ttlSecondsAfterFinished=5)
    body["spec"]["jobs"][0]["podDisruptionBudget"] = {"maxUnavailable": 0}
    if queued:
        body["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "team-queue"}
        body["spec"]["scheduling"] = {"gang": "Coscheduling"}
    run = Run(api, namespace)
    uid = run.create(body)["metadata"]["uid"]
    if queued:
        kueue = Kueue(api, namespace, "tfcluster-run")
        wait_for("the Workload", lambda: kueue.exists(), 30)
        kueue.admit()
    wait_for("the run's pods", lambda: run.pods_if(3), 60)
    run.drive("Running", phase("Running"))
    run.exit("worker", 0, 0)
    run.wait_status("Succeeded", phase("Succeeded"))

    def deleted() -> bool:
        try:
            return bool(run.get()["metadata"]["uid"] != uid)
        except ApiException as err:
            return err.status == 404

    wait_for("the run deleted after its TTL", deleted, 60)


def stamp(event: dict[str, Any]) -> float:
    from support.operator_on_k8s import _stamp

    return _stamp(str(event["requestReceivedTimestamp"]))


def secured_day(cluster: Cluster, with_cert_manager: bool) -> None:
    """spec.tls by the operator's CA with a NetworkPolicy; then by a cert-manager issuer (its
    Certificates validated by cert-manager's own CRD; left out when that CRD could not be
    fetched); then neither."""
    ns, name = cluster.ns, cluster.name
    networking = client.NetworkingV1Api(cluster.api)

    def secret(which: str) -> Any:
        found = cluster.core.list_namespaced_secret(ns, field_selector=f"metadata.name={which}")
        return found.items[0] if found.items else None

    def policy() -> Any:
        found = networking.list_namespaced_network_policy(
            ns, field_selector=f"metadata.name={name}-tasks"
        )
        return found.items[0] if found.items else None

    cluster.patch_spec({"tls": {"enabled": True}, "networkPolicy": {"enabled": True}})
    wait_for("the TLS Secrets", lambda: secret(f"{name}-client-tls"), 30)
    wait_for("the NetworkPolicy", policy, 30)
    if with_cert_manager:
        cluster.patch_spec({"tls": {"enabled": True, "issuerRef": {"name": "corp-ca"}}})
        wait_for("the Certificates", lambda: certificate(cluster.api, ns, f"{name}-client"), 30)
        issued = certificate(cluster.api, ns, f"{name}-client")
        assert issued is not None and issued["spec"]["issuerRef"]["name"] == "corp-ca"
        wait_for("the operator's CA pruned", lambda: secret(f"{name}-ca") is None, 30)
    cluster.patch_spec({"tls": {"enabled": False}, "networkPolicy": {"enabled": False}})
    if with_cert_manager:
        wait_for(
            "the Certificates pruned",
            lambda: certificate(cluster.api, ns, f"{name}-client") is None,
            30,
        )
    wait_for("the NetworkPolicy pruned", lambda: policy() is None, 30)


@pytest.mark.parametrize(
    ("source", "namespaced"),
    [
        pytest.param("manifests", False, id="manifests-clusterwide"),
        pytest.param("manifests", True, id="manifests-namespaced"),
        pytest.param("chart", False, id="chart-clusterwide"),
        pytest.param("chart", True, id="chart-namespaced"),
    ],
)
def test_operator_serves_at_once_with_exactly_the_rbac_it_is_given(
    source: str,
    namespaced: bool,
    k8s_api_client: ApiClient,
    k8s_control_plane: ControlPlane,
    k8s_service_account_client: Callable[[str, str], ApiClient],
    kubectl: Kubectl,
    namespaces: Callable[[str], str],
    tmp_path: Path,
    third_party_crds: list[str] | None,
) -> None:
    first, second, outside = namespaces("watched"), namespaces("watched"), namespaces("other")
    watched = [first, second] if namespaced else []
    setup = install(source, watched, k8s_api_client, namespaces)
    user = service_account_user(setup.namespace, setup.account)
    wait_authorized(k8s_service_account_client(setup.namespace, setup.account), first)

    # A TFCluster waiting for an operator: `kubectl get` shows no observed generation yet.
    early = Cluster(k8s_api_client, first, "early")
    early.create(example())
    waiting = kubectl.get_tfc(first, "early")
    stray = Cluster(k8s_api_client, outside, "stray")
    stray.create(example())

    kubeconfig = k8s_control_plane.service_account_kubeconfig(
        setup.namespace, setup.account, tmp_path / "operator.kubeconfig"
    )
    with running_operator(
        kubeconfig, tmp_path, free_port, namespaces=watched, user=user, wait=False
    ) as op:
        wait_for("the waiting TFCluster's StatefulSets", lambda: early.sts("worker"), 60)
        served = time.time()
        made = requests_of(k8s_control_plane.audit_events(user), since=op.started)
        applied = first_apply(made, first)
        assert made and applied is not None
        after_first_request = stamp(applied) - stamp(made[0])
        after_start = stamp(applied) - op.started
        print(
            f"{source} {'namespaced' if namespaced else 'cluster-wide'}: first child applied "
            f"{after_first_request:.2f} s after the operator's first request, "
            f"{after_start:.2f} s after the process started"
        )
        assert after_first_request <= SERVE_SECONDS, (
            f"served {after_first_request:.1f} s after its first request: "
            + "; ".join(describe_request(e) for e in made[:20])
        )
        assert served - op.started < 30  # a loaded CI machine: imports, start-up
        assert (waiting.get("GENERATION"), waiting.get("OBSERVED"), waiting["PHASE"]) == (
            "1",
            "",
            "",
        )

        # The generation it acted on shows beside the spec's.
        early.wait_status("observed", lambda s: s.get("observedGeneration") == 1, 10)
        assert kubectl.get_tfc(first, "early")["OBSERVED"] == "1"

        # Everything it does on an ordinary day, under these grants.
        early.drive_until("Running", running)
        late = Cluster(k8s_api_client, second, "late")
        late.create(example())
        wait_for("a TFCluster created after the start", lambda: late.sts("worker"), 30)
        jobs = example()["spec"]["jobs"]
        early.patch_spec({"jobs": [*jobs, {"name": "evaluator", "replicas": 1}]})
        wait_for("the evaluator", lambda: early.sts("evaluator"), 30)
        early.patch_spec({"jobs": jobs})
        wait_for("the evaluator pruned", lambda: early.sts("evaluator") is None, 30)
        old = early.service("early-client")
        assert old is not None
        early.core.delete_namespaced_service("early-client", first)
        wait_for(
            "the client Service re-created",
            lambda: (
                (svc := early.service("early-client")) is not None
                and svc.metadata.uid != old.metadata.uid
            ),
            30,
        )
        # The same event twice (the client Service created again): counted, not repeated.
        wait_for(
            "the repeated Created event counted",
            lambda: any(
                e.reason == "Created"
                and e.message == "Created Service early-client"
                and e.count == 2
                for e in early.events()
            ),
            10,
        )
        early.drive_until("Running again", running)
        secured_day(early, with_cert_manager=CERTIFICATE_CRD in (third_party_crds or []))
        a_run_to_its_end(k8s_api_client, second, queued=third_party_crds is not None)
        if namespaced:
            time.sleep(1)
            assert not stray.status(), "a TFCluster outside the watched namespaces was touched"
            assert stray.sts("worker") is None
        assert op.process.poll() is None, op.log_tail()
        time.sleep(0.5)
        made = requests_of(k8s_control_plane.audit_events(user), since=op.started)

    # RBAC's verdict on each request (a 403 for a namespace being deleted is not RBAC's).
    refused = [
        describe_request(e)
        for e in made
        if (e.get("annotations") or {}).get("authorization.k8s.io/decision") != "allow"
    ]
    assert not refused, f"requests its RBAC does not allow: {refused}"
    if namespaced:
        elsewhere = [
            describe_request(e)
            for e in made
            if e.get("objectRef")
            and e["objectRef"].get("namespace") not in watched
            and not (
                e["objectRef"].get("resource") == "namespaces"
                and e["objectRef"].get("name") in watched
            )
        ]
        assert not elsewhere, f"requests outside the watched namespaces: {elsewhere}"
    used = {
        (
            e["verb"],
            "/".join(
                x for x in (e["objectRef"].get("resource"), e["objectRef"].get("subresource")) if x
            ),
        )
        for e in made
        if e.get("objectRef")
    }
    unused = setup.granted() - used - NOT_A_REQUEST
    if third_party_crds is None:
        unused -= THIRD_PARTY
    assert not unused, f"granted but never needed: {sorted(unused)}"
