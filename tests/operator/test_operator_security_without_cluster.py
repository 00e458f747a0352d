"""spec.tls and spec.networkPolicy without a cluster: the pod template a secured job gets, the
certificates the operator issues (names, reuse, renewal, a renewed CA), cert-manager
Certificates, the NetworkPolicy; and the certificates themselves working with real task
servers and a client over mutual TLS."""

from __future__ import annotations

import base64
import copy
import datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from prometheus_client import CollectorRegistry
from support.operator_manifests import container_env
from tfcluster_operator.builders import OwnerRef, statefulset
from tfcluster_operator.builders.meta import POD_INDEX_LABEL
from tfcluster_operator.builders.network_policy import CLIENT_LABEL, network_policy
from tfcluster_operator.builders.tls import certificates, task_dns_names
from tfcluster_operator.children import Children
from tfcluster_operator.config import ConfigError, OperatorConfig
from tfcluster_operator.metrics import OperatorMetrics
from tfcluster_operator.reconcile import Reconciler
from tfcluster_operator.spec import SpecError, TFClusterSpec, parse_spec
from tfcluster_operator.tls_secrets import Lifetimes, SecretIssuer

OWNER = OwnerRef(name="demo", uid="uid-1")
START = datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC)


def _spec(**fields: Any) -> TFClusterSpec:
    return parse_spec(
        "demo",
        "team",
        {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 2}], **fields},
        default_image="img:1",
    )


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime.datetime:
        return self.now


def _issuer(clock: Clock, days: float = 30) -> SecretIssuer:
    return SecretIssuer(Lifetimes(certificate=datetime.timedelta(days=days)), "", clock)


def _by_name(manifests: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {m["metadata"]["name"]: m for m in manifests}


def _cert(secret: dict[str, Any], key: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate(base64.b64decode(secret["data"][key]))


def _names(cert: x509.Certificate) -> set[str]:
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return set(sans.get_values_for_type(x509.DNSName))


# ---------------------------------------------------------------------- the pod template


def test_a_secured_job_mounts_its_secret_and_finds_its_own_files_by_index() -> None:
    sts = statefulset(_spec(tls={"enabled": True}), _spec().job("worker"), OWNER)
    pod = sts["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert {
        "name": "tfcluster-tls",
        "secret": {"secretName": "demo-worker-tls", "defaultMode": 0o444},
    } in pod["volumes"]
    mount = next(m for m in container["volumeMounts"] if m["name"] == "tfcluster-tls")
    assert mount == {
        "name": "tfcluster-tls",
        "mountPath": "/var/run/tfcluster/tls",
        "readOnly": True,
    }
    assert "subPath" not in mount  # a renewed Secret must reach the running pod
    env = container_env(container["env"], {POD_INDEX_LABEL: "1"})
    assert env["TFCLUSTER_TLS_CERT"] == "/var/run/tfcluster/tls/1.crt"
    assert env["TFCLUSTER_TLS_KEY"] == "/var/run/tfcluster/tls/1.key"
    assert env["TFCLUSTER_TLS_CA"] == "/var/run/tfcluster/tls/ca.crt"
    # The kubelet's gRPC probe speaks no TLS: readiness over HTTP on the metrics port.
    assert container["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert "grpc" not in container["readinessProbe"]


def test_a_plain_job_keeps_the_grpc_probe_and_no_tls() -> None:
    sts = statefulset(_spec(), _spec().job("worker"), OWNER)
    (container,) = sts["spec"]["template"]["spec"]["containers"]
    assert "grpc" in container["readinessProbe"]
    assert not any(e["name"].startswith("TFCLUSTER_TLS_") for e in container["env"])


def test_a_task_certificate_names_the_address_its_peers_dial() -> None:
    spec = _spec()
    names = task_dns_names(spec, "worker", 1, "cluster.local")
    assert "demo-worker-1.demo-worker.team.svc" in names  # TF_CONFIG's address
    assert "demo-worker-1.demo-worker.team.svc.cluster.local" in names
    assert not any("client" in n for n in names)
    client_task = task_dns_names(spec, "worker", 0, "")
    assert {"demo-client", "demo-client.team", "demo-client.team.svc"} <= set(client_task)


# ---------------------------------------------------------------------- issued certificates


def test_the_operator_issues_a_ca_a_certificate_per_task_and_a_client_certificate() -> None:
    clock = Clock()
    issued = _issuer(clock).secrets(_spec(tls={"enabled": True}), OWNER, {})
    secrets = _by_name(issued.manifests)
    assert set(secrets) == {"demo-ca", "demo-ps-tls", "demo-worker-tls", "demo-client-tls"}
    for secret in secrets.values():
        assert secret["metadata"]["ownerReferences"][0]["uid"] == "uid-1"
    assert secrets["demo-ca"]["type"] == "kubernetes.io/tls"
    ca = _cert(secrets["demo-ca"], "tls.crt")
    worker = secrets["demo-worker-tls"]
    assert set(worker["data"]) == {"ca.crt", "0.crt", "0.key", "1.crt", "1.key"}
    for index in (0, 1):
        cert = _cert(worker, f"{index}.crt")
        cert.verify_directly_issued_by(ca)
        assert _names(cert) == set(task_dns_names(_spec(), "worker", index, ""))
    client = _cert(secrets["demo-client-tls"], "tls.crt")
    client.verify_directly_issued_by(ca)
    assert secrets["demo-client-tls"]["type"] == "kubernetes.io/tls"
    # The next renewal falls due with a third of the 30 days left.
    assert issued.renew_in == pytest.approx(20 * 86400, rel=1e-3)


def test_good_certificates_are_kept_byte_for_byte_and_due_ones_renewed() -> None:
    clock = Clock()
    issuer = _issuer(clock)
    spec = _spec(tls={"enabled": True})
    first = _by_name(issuer.secrets(spec, OWNER, {}).manifests)
    again = _by_name(issuer.secrets(spec, OWNER, copy.deepcopy(first)).manifests)
    assert again == first  # nothing to apply
    clock.now = START + datetime.timedelta(days=21)  # within the last third
    renewed = _by_name(issuer.secrets(spec, OWNER, first).manifests)
    assert renewed["demo-ca"] == first["demo-ca"]  # the CA lives on
    for name in ("demo-ps-tls", "demo-worker-tls", "demo-client-tls"):
        assert renewed[name]["data"] != first[name]["data"]
    ca = _cert(first["demo-ca"], "tls.crt")
    _cert(renewed["demo-worker-tls"], "0.crt").verify_directly_issued_by(ca)


def test_a_new_task_gets_a_certificate_and_the_others_keep_theirs() -> None:
    clock = Clock()
    issuer = _issuer(clock)
    first = _by_name(issuer.secrets(_spec(tls={"enabled": True}), OWNER, {}).manifests)
    bigger = _spec(tls={"enabled": True}, jobs=[{"name": "ps"}, {"name": "worker", "replicas": 3}])
    grown = _by_name(issuer.secrets(bigger, OWNER, first).manifests)
    old, new = first["demo-worker-tls"]["data"], grown["demo-worker-tls"]["data"]
    assert {k: new[k] for k in old} == old
    assert {"2.crt", "2.key"} <= set(new)


def test_a_tampered_certificate_is_replaced() -> None:
    clock = Clock()
    issuer = _issuer(clock)
    spec = _spec(tls={"enabled": True})
    first = _by_name(issuer.secrets(spec, OWNER, {}).manifests)
    tampered = copy.deepcopy(first)
    # Another CA's certificate for the same task.
    foreign = _by_name(_issuer(clock).secrets(spec, OWNER, {}).manifests)
    tampered["demo-ps-tls"]["data"]["0.crt"] = foreign["demo-ps-tls"]["data"]["0.crt"]
    tampered["demo-ps-tls"]["data"]["0.key"] = foreign["demo-ps-tls"]["data"]["0.key"]
    fixed = _by_name(issuer.secrets(spec, OWNER, tampered).manifests)
    _cert(fixed["demo-ps-tls"], "0.crt").verify_directly_issued_by(
        _cert(first["demo-ca"], "tls.crt")
    )


def test_a_renewed_ca_is_trusted_beside_the_old_one_while_it_lives() -> None:
    clock = Clock()
    issuer = SecretIssuer(
        Lifetimes(certificate=datetime.timedelta(days=1), ca=datetime.timedelta(days=30)),
        "",
        clock,
    )
    spec = _spec(tls={"enabled": True})
    first = _by_name(issuer.secrets(spec, OWNER, {}).manifests)
    clock.now = START + datetime.timedelta(days=25)
    second = _by_name(issuer.secrets(spec, OWNER, first).manifests)
    old_ca, new_ca = _cert(first["demo-ca"], "tls.crt"), _cert(second["demo-ca"], "tls.crt")
    assert old_ca.serial_number != new_ca.serial_number
    bundle = x509.load_pem_x509_certificates(
        base64.b64decode(second["demo-worker-tls"]["data"]["ca.crt"])
    )
    assert [c.serial_number for c in bundle] == [new_ca.serial_number, old_ca.serial_number]
    _cert(second["demo-worker-tls"], "0.crt").verify_directly_issued_by(new_ca)


def test_cert_manager_issues_instead_when_an_issuer_is_named() -> None:
    spec = _spec(tls={"enabled": True, "issuerRef": {"name": "corp-ca", "kind": "ClusterIssuer"}})
    assert _issuer(Clock()).secrets(spec, OWNER, {}).manifests == []
    found = _by_name(certificates(spec, OWNER, ""))
    assert set(found) == {"demo-ps-tls", "demo-worker-tls", "demo-client"}
    worker = found["demo-worker-tls"]["spec"]
    assert worker["secretName"] == "demo-worker-tls"
    assert worker["issuerRef"] == {
        "name": "corp-ca",
        "kind": "ClusterIssuer",
        "group": "cert-manager.io",
    }
    assert set(worker["dnsNames"]) >= {
        "demo-worker-0.demo-worker.team.svc",
        "demo-worker-1.demo-worker.team.svc",
        "demo-client.team.svc",
    }
    assert found["demo-client"]["spec"]["secretName"] == "demo-client-tls"
    sts = statefulset(spec, spec.job("worker"), OWNER)
    env = container_env(
        sts["spec"]["template"]["spec"]["containers"][0]["env"], {POD_INDEX_LABEL: "0"}
    )
    assert env["TFCLUSTER_TLS_CERT"] == "/var/run/tfcluster/tls/tls.crt"


@pytest.mark.parametrize(
    "tls",
    [{"issuerRef": {}}, {"issuerRef": {"name": "x", "kind": "Vault"}}, "yes"],
)
def test_a_bad_tls_spec_is_refused(tls: Any) -> None:
    with pytest.raises(SpecError):
        _spec(tls=tls)


def test_operator_settings_for_security() -> None:
    config = OperatorConfig.from_env(
        {
            "TFCLUSTER_OPERATOR_NETWORK_POLICY": "true",
            "TFCLUSTER_OPERATOR_TLS_CERTIFICATE_SECONDS": "3600",
        }
    )
    assert config.network_policy_default and config.tls_certificate_seconds == 3600
    with pytest.raises(ConfigError):
        OperatorConfig.from_env({"TFCLUSTER_OPERATOR_NETWORK_POLICY": "maybe"})
    with pytest.raises(ConfigError):
        OperatorConfig.from_env({"TFCLUSTER_OPERATOR_TLS_CERTIFICATE_SECONDS": "5"})


# ---------------------------------------------------------------------- the NetworkPolicy


def test_the_network_policy_lets_in_the_cluster_and_its_labelled_clients_only() -> None:
    spec = _spec(
        networkPolicy={
            "metricsFrom": [{"namespaceSelector": {"matchLabels": {"name": "monitoring"}}}],
        }
    )
    policy = network_policy(spec, OWNER)["spec"]
    tasks = {"tfcluster.dev/cluster": "demo", "app.kubernetes.io/managed-by": "tfcluster-operator"}
    assert policy["podSelector"] == {"matchLabels": tasks}
    assert policy["policyTypes"] == ["Ingress", "Egress"]
    serving, metrics = policy["ingress"]
    assert serving["from"] == [
        {"podSelector": {"matchLabels": tasks}},
        {"podSelector": {"matchLabels": {CLIENT_LABEL: "demo"}}},
    ]
    assert {p["port"] for p in serving["ports"]} == {2222, 2223}
    assert metrics == {
        "from": [{"namespaceSelector": {"matchLabels": {"name": "monitoring"}}}],
        "ports": [{"protocol": "TCP", "port": 9090}],
    }
    to_tasks, dns = policy["egress"]
    assert to_tasks["to"] == [{"podSelector": {"matchLabels": tasks}}]
    assert {(p["protocol"], p["port"]) for p in dns["ports"]} == {("UDP", 53), ("TCP", 53)}
    assert "to" not in dns


def test_without_metrics_from_nobody_scrapes_and_clients_may_come_from_named_namespaces() -> None:
    selector = {"matchLabels": {"team": "ml"}}
    spec = _spec(networkPolicy={"clientNamespaceSelector": selector})
    policy = network_policy(spec, OWNER)["spec"]
    assert len(policy["ingress"]) == 1
    client = policy["ingress"][0]["from"][1]
    assert client == {
        "podSelector": {"matchLabels": {CLIENT_LABEL: "demo"}},
        "namespaceSelector": selector,
    }


# ---------------------------------------------------------------------- the sync


class Api:
    """Stores what is applied; what a watch would show is every stored object."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls: list[str] = []
        self.status: dict[str, Any] = {}

    def apply(self, manifest: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        kind, name = manifest["kind"], manifest["metadata"]["name"]
        self.calls.append(f"{'dry-run' if dry_run else 'apply'} {kind} {name}")
        obj = copy.deepcopy(manifest)
        obj["metadata"]["uid"] = f"uid-{name}"
        obj["metadata"]["resourceVersion"] = str(len(self.calls))
        if not dry_run:
            self.objects[(kind, name)] = obj
        return copy.deepcopy(obj)

    def delete(self, kind: str, namespace: str, name: str) -> bool:
        self.calls.append(f"delete {kind} {name}")
        return self.objects.pop((kind, name), None) is not None

    def patch_tfcluster_status(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        self.status.update({k: v for k, v in patch.items() if v is not None})

    def create_event(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(f"event {body['reason']}: {body['message']}")
        return {"metadata": {"name": f"e{len(self.calls)}"}}

    def patch_event(self, namespace: str, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        return {}

    def children(self) -> Children:
        def of(kind: str) -> list[dict[str, Any]]:
            return [o for (k, _), o in self.objects.items() if k == kind]

        return Children.of(
            statefulsets=of("StatefulSet"),
            services=of("Service"),
            others=[*of("Secret"), *of("NetworkPolicy")],
        )


def _body(**spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "demo", "namespace": "team", "uid": "uid-1", "generation": 1},
        "spec": {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 2}], **spec},
        "status": {},
    }


def _reconciler(api: Api, **config: Any) -> Reconciler:
    return Reconciler(api, OperatorConfig(**config), OperatorMetrics(CollectorRegistry()))  # type: ignore[arg-type]


def test_a_secured_cluster_gets_its_secrets_and_policy_once_and_a_sync_for_the_renewal() -> None:
    api = Api()
    reconciler = _reconciler(api, network_policy_default=True)
    body = _body(tls={"enabled": True})
    result = reconciler.sync(body, Children())
    applied = [c for c in api.calls if c.startswith("apply")]
    assert {
        "apply Secret demo-ca",
        "apply Secret demo-ps-tls",
        "apply Secret demo-worker-tls",
        "apply Secret demo-client-tls",
        "apply NetworkPolicy demo-tasks",
    } <= set(applied)
    assert result.retry_after is not None and result.retry_after > 86400  # the renewal
    body["status"] = copy.deepcopy(api.status)
    api.calls.clear()
    reconciler.sync(body, api.children())
    # Nothing changed: nothing applied (the certificates were kept as they are).
    assert [c for c in api.calls if c.startswith(("apply", "dry-run"))] == []


def test_drift_in_a_secret_is_reverted_without_showing_its_values() -> None:
    api = Api()
    reconciler = _reconciler(api)
    body = _body(tls={"enabled": True})
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    secret = api.objects[("Secret", "demo-client-tls")]
    real_key = secret["data"]["tls.key"]
    secret["data"]["tls.key"] = base64.b64encode(b"not a key").decode()
    secret["metadata"]["resourceVersion"] = "999"
    api.calls.clear()
    reconciler.sync(body, api.children())
    events = [c for c in api.calls if c.startswith("event")]
    assert any("Reverted Secret demo-client-tls: data.tls.key" in e for e in events), events
    assert not any(real_key[:20] in e for e in api.calls)
    assert api.objects[("Secret", "demo-client-tls")]["data"]["tls.key"] != "bm90IGEga2V5"


def test_network_policy_follows_the_spec_over_the_default() -> None:
    api = Api()
    _reconciler(api, network_policy_default=True).sync(
        _body(networkPolicy={"enabled": False}), Children()
    )
    assert not any("NetworkPolicy" in c for c in api.calls)
    api = Api()
    _reconciler(api).sync(_body(networkPolicy={"enabled": True}), Children())
    assert "apply NetworkPolicy demo-tasks" in api.calls
    api = Api()
    _reconciler(api).sync(_body(), Children())
    assert not any("NetworkPolicy" in c or "Secret" in c for c in api.calls)


def test_turning_tls_off_prunes_its_secrets() -> None:
    api = Api()
    reconciler = _reconciler(api)
    body = _body(tls={"enabled": True})
    reconciler.sync(body, Children())
    body["status"] = copy.deepcopy(api.status)
    off = _body(tls={"enabled": False})
    off["metadata"]["generation"] = 2
    off["status"] = copy.deepcopy(api.status)
    reconciler.sync(off, api.children())
    assert not [k for k in api.objects if k[0] == "Secret"]


# ---------------------------------------------------------------------- with real servers


def test_the_operators_certificates_secure_real_task_servers_and_a_client(tmp_path: Path) -> None:
    """What the operator puts in the Secrets, written where the pods would mount it, serves
    two tasks that dial each other by their DNS names (here: localhost, which the
    certificates name too) and a client with the client Secret's files."""
    import tfcluster as tf
    from support.cluster_processes import free_ports
    from tfcluster.rpc import tls

    spec = _spec(tls={"enabled": True})
    clock_now = datetime.datetime.now(datetime.UTC)
    secrets = _by_name(
        SecretIssuer(Lifetimes(), "", lambda: clock_now).secrets(spec, OWNER, {}).manifests
    )
    folders = {}
    for name in ("demo-worker-tls", "demo-client-tls"):
        folder = tmp_path / name
        folder.mkdir()
        for key, value in secrets[name]["data"].items():
            (folder / key).write_bytes(base64.b64decode(value))
        folders[name] = folder
    worker = folders["demo-worker-tls"]
    ports = free_ports(2)
    cluster = {"worker": [f"localhost:{p}" for p in ports]}
    servers = [
        tf.train.Server(
            cluster,
            job_name="worker",
            task_index=i,
            tls=(str(worker / f"{i}.crt"), str(worker / f"{i}.key"), str(worker / "ca.crt")),
        )
        for i in range(2)
    ]
    try:
        client = folders["demo-client-tls"]
        tls.use_for_clients(
            tls.TLSSource(
                tls.TLSFiles(
                    str(client / "tls.crt"), str(client / "tls.key"), str(client / "ca.crt")
                )
            )
        )
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:worker/task:1"):
                v = tf.Variable(3.0)
            with tf.device("/job:worker/task:0"):
                y = v * 2.0
        config = tf.ConfigProto(operation_timeout_in_ms=30000)
        config.rpc_options.use_rpc_for_inprocess_master = True
        with tf.Session(servers[0].target, graph=g, config=config) as sess:
            sess.run(v.initializer)
            assert sess.run(y) == 6.0
    finally:
        for server in servers:
            server.stop(grace=0.0)
        tls.use_for_clients(None)
