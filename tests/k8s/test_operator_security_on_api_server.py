"""spec.tls and spec.networkPolicy against the real API server, the operator running as its
ServiceAccount under manifests/rbac.yaml: the CA, task and client Secrets with the right
names in their certificates, mounted into every task's pod, renewed before they expire; a
NetworkPolicy the API server accepts whose selectors pick exactly the cluster's pods and the
pods labelled as its clients."""

from __future__ import annotations

import base64
import copy
import datetime
import time
from collections.abc import Iterator
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes")
pytest.importorskip("kopf")
pytest.importorskip("cryptography")
from cryptography import x509  # noqa: E402
from kubernetes import client  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.operator_on_k8s import (  # noqa: E402
    Cluster,
    Operator,
    example,
    pod_env,
    wait_for,
)

pytestmark = pytest.mark.k8s

# Certificates of a minute: renewed with 20 s left, so a test sees a renewal.
CERT_SECONDS = 60


@pytest.fixture(scope="module")
def operator_env() -> dict[str, str]:
    return {
        "TFCLUSTER_OPERATOR_TLS_CERTIFICATE_SECONDS": str(CERT_SECONDS),
        "TFCLUSTER_OPERATOR_NETWORK_POLICY": "true",  # as the chart and manifests set it
    }


def _secret(core: client.CoreV1Api, ns: str, name: str) -> client.V1Secret | None:
    try:
        return core.read_namespaced_secret(name, ns)
    except ApiException as err:
        if err.status == 404:
            return None
        raise


def _cert(secret: client.V1Secret, key: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate(base64.b64decode(secret.data[key]))


def _dns_names(cert: x509.Certificate) -> set[str]:
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return set(sans.get_values_for_type(x509.DNSName))


@pytest.fixture
def secured(operator: Operator, k8s_namespace: str, k8s_api_client: ApiClient) -> Iterator[Cluster]:
    c = Cluster(k8s_api_client, k8s_namespace)
    body = copy.deepcopy(example())
    body["spec"]["tls"] = {"enabled": True}
    c.create(body)
    yield c


def test_tls_secrets_carry_the_tasks_names_are_mounted_and_renewed(secured: Cluster) -> None:
    c, ns = secured, secured.ns
    names = ("example-ca", "example-ps-tls", "example-worker-tls", "example-client-tls")
    secrets = {
        name: wait_for(f"Secret {name}", lambda name=name: _secret(c.core, ns, name))
        for name in names
    }
    uid = c.get()["metadata"]["uid"]
    for secret in secrets.values():
        (owner,) = secret.metadata.owner_references
        assert owner.uid == uid and owner.kind == "TFCluster"
    ca = _cert(secrets["example-ca"], "tls.crt")
    workers = secrets["example-worker-tls"]
    assert set(workers.data) == {"ca.crt", "0.crt", "0.key", "1.crt", "1.key"}
    for index in (0, 1):
        cert = _cert(workers, f"{index}.crt")
        cert.verify_directly_issued_by(ca)
        pod = f"example-worker-{index}.example-worker"
        expected = {pod, f"{pod}.{ns}", f"{pod}.{ns}.svc", "localhost"}
        if index == 0:  # the client task: the client Service's names too
            expected |= {"example-client", f"example-client.{ns}", f"example-client.{ns}.svc"}
        assert _dns_names(cert) == expected
    client_secret = secrets["example-client-tls"]
    assert client_secret.type == "kubernetes.io/tls"
    _cert(client_secret, "tls.crt").verify_directly_issued_by(ca)

    # Mounted: every task pod the StatefulSet controller made has the job's Secret as a
    # volume, and its variables name files that Secret holds.
    sts = wait_for("the worker StatefulSet", lambda: c.sts("worker"))
    pods = wait_for("2 worker pods", lambda: (p := c.pods("worker")) and len(p) == 2 and p)
    for pod in pods:
        volumes = {v.name: v for v in pod.spec.volumes or []}
        assert volumes["tfcluster-tls"].secret.secret_name == "example-worker-tls"
        (container,) = pod.spec.containers
        mounts = {m.name: m for m in container.volume_mounts or []}
        assert mounts["tfcluster-tls"].mount_path == "/var/run/tfcluster/tls"
        assert mounts["tfcluster-tls"].sub_path is None  # renewals reach the running pod
        env = pod_env(sts, pod)
        index = pod.metadata.labels["apps.kubernetes.io/pod-index"]
        for variable, key in (
            ("TFCLUSTER_TLS_CERT", f"{index}.crt"),
            ("TFCLUSTER_TLS_KEY", f"{index}.key"),
            ("TFCLUSTER_TLS_CA", "ca.crt"),
        ):
            assert env[variable] == f"/var/run/tfcluster/tls/{key}"
            assert key in workers.data
        assert container.readiness_probe.http_get.path == "/healthz"

    # Renewed before expiry: with a third of its life left, each certificate is replaced
    # (same names, same CA) without anyone asking.
    first = _cert(workers, "0.crt")
    lifetime = first.not_valid_after_utc - first.not_valid_before_utc
    assert lifetime <= datetime.timedelta(seconds=CERT_SECONDS + 301)  # 5 min of clock skew

    def renewed() -> x509.Certificate | None:
        secret = _secret(c.core, ns, "example-worker-tls")
        cert = _cert(secret, "0.crt") if secret else None
        return cert if cert and cert.serial_number != first.serial_number else None

    second = wait_for("a renewed certificate", renewed, timeout=CERT_SECONDS * 1.5)
    assert second.not_valid_after_utc > first.not_valid_after_utc
    assert _dns_names(second) == _dns_names(first)
    second.verify_directly_issued_by(ca)
    now = time.time()
    assert first.not_valid_after_utc.timestamp() > now - 5, "renewed only after it expired"
    assert _cert(_secret(c.core, ns, "example-ca"), "tls.crt").serial_number == ca.serial_number


def _selected(core: client.CoreV1Api, ns: str, labels: dict[str, str]) -> set[str]:
    selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
    return {p.metadata.name for p in core.list_namespaced_pod(ns, label_selector=selector).items}


def _pod(core: client.CoreV1Api, ns: str, name: str, labels: dict[str, str]) -> None:
    core.create_namespaced_pod(
        ns,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        },
    )


def test_the_network_policy_selects_exactly_the_cluster_and_its_labelled_clients(
    operator: Operator, k8s_namespace: str, k8s_api_client: ApiClient
) -> None:
    c = Cluster(k8s_api_client, k8s_namespace)
    body = copy.deepcopy(example())
    monitoring = {"namespaceSelector": {"matchLabels": {"purpose": "monitoring"}}}
    body["spec"]["networkPolicy"] = {"metricsFrom": [monitoring]}
    c.create(body)
    networking = client.NetworkingV1Api(k8s_api_client)

    def policy() -> Any:
        try:
            return networking.read_namespaced_network_policy("example-tasks", c.ns)
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    # The API server validated it (the operator's dry run, then its apply).
    found = wait_for("the NetworkPolicy", policy)
    spec = found.spec
    wait_for("3 pods", lambda: c.pods_if(3))
    # Someone else's pod that only borrows the cluster label, and a labelled client.
    _pod(c.core, c.ns, "impostor", {"tfcluster.dev/cluster": "example"})
    _pod(c.core, c.ns, "notebook", {"tfcluster.dev/client-of": "example"})
    _pod(c.core, c.ns, "bystander", {"app": "other"})
    tasks = {p.metadata.name for p in c.pods()} - {"impostor"}
    assert tasks == {"example-ps-0", "example-worker-0", "example-worker-1"}
    assert _selected(c.core, c.ns, spec.pod_selector.match_labels) == tasks
    assert spec.policy_types == ["Ingress", "Egress"]
    serving, metrics = spec.ingress
    assert {p.port for p in serving.ports} == {2222, 2223}
    own, clients = serving._from
    assert _selected(c.core, c.ns, own.pod_selector.match_labels) == tasks
    assert _selected(c.core, c.ns, clients.pod_selector.match_labels) == {"notebook"}
    assert own.namespace_selector is None and clients.namespace_selector is None
    assert [p.port for p in metrics.ports] == [9090]
    assert metrics._from[0].namespace_selector.match_labels == {"purpose": "monitoring"}
    egress_ports = {(p.protocol, p.port) for rule in spec.egress for p in rule.ports}
    assert {("UDP", 53), ("TCP", 53), ("TCP", 2222), ("TCP", 2223)} == egress_ports

    # Turned off in the spec: the operator deletes it.
    c.patch_spec({"networkPolicy": {"enabled": False}})
    wait_for("the NetworkPolicy to go", lambda: policy() is None)
