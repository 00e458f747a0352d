"""A real Kubernetes control plane on loopback: etcd, kube-apiserver, kube-controller-manager.

No kubelet and, unless asked (``scheduler=True``), no scheduler: Pods are created (by the
StatefulSet controller, say) but stay Pending. The e2e environment (``support/e2e``) binds
the API server to an address its pods can reach (``bind_address``) and adds the nodes.
Everything lives in one folder: certificates, kubeconfigs, etcd's data and one log per
component (``<name>.log``). Each component runs in its own process group and gets SIGKILL
if the Python process dies (``PR_SET_PDEATHSIG``); ``stop`` (also registered with
``atexit``) ends them all.

    with ControlPlane(find_binaries(), tmp_path) as cp:
        cp.admin_kubeconfig            # system:masters
        cp.service_account_kubeconfig("ns", "sa")   # a TokenRequest token: RBAC applies
        cp.audit_events(user="system:serviceaccount:ns:sa")   # what that user asked for

The API server keeps an audit log (``audit.log``, JSON lines) of every request made by a
ServiceAccount outside kube-system (the controllers' own accounts are left out): the tests
count and inspect the operator's requests there, as the server saw them.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import ctypes
import json
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ..ports import free_port
from .binaries import Binaries
from .pki import TestPKI

SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"

# Metadata (who, what, answer code) of requests by ServiceAccounts, except the controllers'.
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [
        {"level": "None", "userGroups": ["system:serviceaccounts:kube-system"]},
        {"level": "Metadata", "userGroups": ["system:serviceaccounts"]},
        {"level": "None"},
    ],
}

# Controllers the tests and the operator rely on: StatefulSets and their Pods, owner
# reference garbage collection, ServiceAccounts and their tokens, namespace deletion,
# Services' endpoints, the kube-root-ca.crt ConfigMap, aggregated ClusterRoles (admin,
# edit, view) and the usual workload kinds.
DEFAULT_CONTROLLERS: tuple[str, ...] = (
    "statefulset-controller",
    "garbage-collector-controller",
    "serviceaccount-token-controller",
    "serviceaccount-controller",
    "namespace-controller",
    "root-ca-certificate-publisher-controller",
    "clusterrole-aggregation-controller",
    "endpoints-controller",
    "endpointslice-controller",
    "replicaset-controller",
    "deployment-controller",
    "job-controller",
)

_PR_SET_PDEATHSIG = 1
_LIBC: Any = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGKILL it when the test process goes away."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class ControlPlaneError(RuntimeError):
    """A component failed to start or answer; the message carries its log's tail."""


@dataclass
class _Component:
    name: str
    process: subprocess.Popen[bytes]
    log: Path


class ControlPlane:
    def __init__(
        self,
        binaries: Binaries,
        workdir: Path,
        *,
        controllers: Sequence[str] = DEFAULT_CONTROLLERS,
        start_timeout: float = 120.0,
        bind_address: str = "127.0.0.1",
        scheduler: bool = False,
    ) -> None:
        self.binaries = binaries
        # Any address but loopback is also advertised: the `kubernetes` Service's endpoint.
        self.bind_address = bind_address
        self.scheduler = scheduler
        self._scheduler_port = free_port()
        self.workdir = workdir
        self.controllers = tuple(controllers)
        self.start_timeout = start_timeout
        self._components: list[_Component] = []
        self._etcd_port = free_port()
        self._etcd_peer_port = free_port()
        self._apiserver_port = free_port()
        self._kcm_port = free_port()
        self.server = f"https://{bind_address}:{self._apiserver_port}"
        self.etcd_url = f"http://127.0.0.1:{self._etcd_port}"
        self.pki_dir = workdir / "pki"
        self.admin_kubeconfig = workdir / "admin.kubeconfig"
        self.audit_log = workdir / "audit.log"
        self._admin_ssl: ssl.SSLContext | None = None

    # ---------------------------------------------------------------- lifecycle

    def __enter__(self) -> ControlPlane:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Start etcd, kube-apiserver, kube-controller-manager; return once they serve."""
        atexit.register(self.stop)
        try:
            self._write_pki()
            deadline = time.monotonic() + self.start_timeout
            self._start_etcd(deadline)
            self._start_apiserver(deadline)
            self._start_controller_manager(deadline)
            if self.scheduler:
                self._start_scheduler(deadline)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop every component (newest first): SIGTERM its group, SIGKILL after 10 s."""
        while self._components:
            component = self._components.pop()
            _kill_group(component.process)
        atexit.unregister(self.stop)

    @property
    def running(self) -> bool:
        return bool(self._components) and all(c.process.poll() is None for c in self._components)

    @property
    def pids(self) -> dict[str, int]:
        """The process id of each started component, by name."""
        return {c.name: c.process.pid for c in self._components}

    def log_tail(self, name: str, lines: int = 40) -> str:
        """The end of a component's log, led by its last klog error lines (E... / F...)."""
        path = self.workdir / f"{name}.log"
        if not path.exists():
            return ""
        text = path.read_text(errors="replace").splitlines()
        errors = [line for line in text if line[:1] in ("E", "F") and line[1:5].isdigit()]
        tail = "\n".join(text[-lines:])
        if not errors:
            return tail
        return "errors:\n" + "\n".join(errors[-10:]) + "\n... last lines:\n" + tail

    # ---------------------------------------------------------------- audit

    def audit_events(self, user: str | None = None) -> list[dict[str, Any]]:
        """The audit log's requests (one entry per request, its final stage), oldest first;
        only ``user``'s when given. A watch appears once, when its response started."""
        if not self.audit_log.exists():
            return []
        seen: dict[str, dict[str, Any]] = {}
        for line in self.audit_log.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line being written
            if user is not None and event.get("user", {}).get("username") != user:
                continue
            seen.setdefault(str(event.get("auditID")), event)
        return sorted(seen.values(), key=lambda e: str(e.get("requestReceivedTimestamp")))

    # ---------------------------------------------------------------- clients

    @property
    def ca_pem(self) -> bytes:
        return (self.pki_dir / "ca.crt").read_bytes()

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> tuple[int, dict[str, Any]]:
        """One call to the API server as the admin (system:masters): (status, JSON body)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, context=self._admin_context(), timeout=30) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        try:
            payload = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            payload = {"raw": raw.decode(errors="replace")}
        return status, payload if isinstance(payload, dict) else {"items": payload}

    def service_account_token(
        self, namespace: str, name: str, *, expiration_seconds: int = 3600
    ) -> str:
        """A bound token for an existing ServiceAccount, from the TokenRequest API."""
        status, payload = self.request(
            "POST",
            f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
            {
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "spec": {"expirationSeconds": expiration_seconds},
            },
        )
        if status != 201:
            raise ControlPlaneError(
                f"TokenRequest for serviceaccount {namespace}/{name} failed ({status}): "
                f"{payload.get('message', payload)}"
            )
        return str(payload["status"]["token"])

    def service_account_kubeconfig(
        self,
        namespace: str,
        name: str,
        path: Path | None = None,
        *,
        expiration_seconds: int = 3600,
    ) -> Path:
        """A kubeconfig that acts as ServiceAccount ``namespace/name`` (which must exist).

        The user is ``system:serviceaccount:<namespace>:<name>``, so only the RBAC rules
        bound to it apply; the context's default namespace is ``namespace``.
        """
        token = self.service_account_token(namespace, name, expiration_seconds=expiration_seconds)
        path = path or self.workdir / f"sa-{namespace}-{name}.kubeconfig"
        return self.write_kubeconfig(
            path, f"system:serviceaccount:{namespace}:{name}", {"token": token}, namespace
        )

    def write_kubeconfig(
        self, path: Path, user_name: str, user: dict[str, str], namespace: str = "default"
    ) -> Path:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "tfcluster-test",
                    "cluster": {
                        "server": self.server,
                        "certificate-authority-data": _b64(self.ca_pem),
                    },
                }
            ],
            "users": [{"name": user_name, "user": user}],
            "contexts": [
                {
                    "name": "tfcluster-test",
                    "context": {
                        "cluster": "tfcluster-test",
                        "user": user_name,
                        "namespace": namespace,
                    },
                }
            ],
            "current-context": "tfcluster-test",
        }
        path.write_text(json.dumps(config, indent=2))  # JSON is YAML
        path.chmod(0o600)
        return path

    # ---------------------------------------------------------------- internals

    def _admin_context(self) -> ssl.SSLContext:
        if self._admin_ssl is None:
            ctx = ssl.create_default_context(cafile=str(self.pki_dir / "ca.crt"))
            ctx.load_cert_chain(self.pki_dir / "admin.crt", self.pki_dir / "admin.key")
            self._admin_ssl = ctx
        return self._admin_ssl

    def _write_pki(self) -> None:
        pki = TestPKI(self.pki_dir)
        pki.issue(
            "apiserver",
            "kube-apiserver",
            server_names=(
                *({self.bind_address} - {"127.0.0.1"}),
                "127.0.0.1",
                "localhost",
                "10.0.0.1",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local",
            ),
        )
        pki.service_account_key()
        pki.issue("front-proxy-client", "front-proxy-client", client=True)
        for stem, cn, org, kubeconfig in (
            ("admin", "tfcluster-test-admin", "system:masters", self.admin_kubeconfig),
            (
                "controller-manager",
                "system:kube-controller-manager",
                None,
                self.workdir / "controller-manager.kubeconfig",
            ),
            ("scheduler", "system:kube-scheduler", None, self.workdir / "scheduler.kubeconfig"),
        ):
            pair = pki.issue(stem, cn, org, client=True)
            self.write_kubeconfig(
                kubeconfig,
                cn,
                {
                    "client-certificate-data": _b64(pair.cert.read_bytes()),
                    "client-key-data": _b64(pair.key.read_bytes()),
                },
            )

    def _spawn(self, name: str, argv: Sequence[str]) -> _Component:
        log = self.workdir / f"{name}.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                start_new_session=True,
                preexec_fn=_die_with_parent,  # the only way to set PR_SET_PDEATHSIG
            )
        component = _Component(name, process, log)
        self._components.append(component)
        return component

    def _wait(
        self, component: _Component, what: str, ready: Callable[[], bool], deadline: float
    ) -> None:
        delay = 0.05
        while True:
            if component.process.poll() is not None:
                raise ControlPlaneError(
                    f"{component.name} exited with {component.process.returncode} before "
                    f"{what}; log {component.log}:\n{self.log_tail(component.name)}"
                )
            with contextlib.suppress(OSError, ssl.SSLError, ValueError):
                if ready():
                    return
            if time.monotonic() > deadline:
                raise ControlPlaneError(
                    f"timed out after {self.start_timeout:.0f} s waiting for {what}; "
                    f"log {component.log}:\n{self.log_tail(component.name)}"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    def _start_etcd(self, deadline: float) -> None:
        peer = f"http://127.0.0.1:{self._etcd_peer_port}"
        etcd = self._spawn(
            "etcd",
            [
                str(self.binaries.etcd),
                "--name=default",
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={self.etcd_url}",
                f"--advertise-client-urls={self.etcd_url}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=default={peer}",
                "--unsafe-no-fsync=true",
                "--log-level=warn",
            ],
        )

        def healthy() -> bool:
            with urllib.request.urlopen(self.etcd_url + "/health", timeout=2) as r:
                return bool(json.load(r).get("health") == "true")

        self._wait(etcd, f"etcd at {self.etcd_url}/health", healthy, deadline)

    def _start_apiserver(self, deadline: float) -> None:
        pki = self.pki_dir
        policy = self.workdir / "audit-policy.json"
        policy.write_text(json.dumps(AUDIT_POLICY))  # JSON is YAML
        apiserver = self._spawn(
            "kube-apiserver",
            [
                str(self.binaries.kube_apiserver),
                f"--etcd-servers={self.etcd_url}",
                f"--bind-address={self.bind_address}",
                f"--advertise-address={self.bind_address}",
                f"--secure-port={self._apiserver_port}",
                f"--cert-dir={self.workdir / 'apiserver-certs'}",
                f"--tls-cert-file={pki / 'apiserver.crt'}",
                f"--tls-private-key-file={pki / 'apiserver.key'}",
                f"--client-ca-file={pki / 'ca.crt'}",
                # The aggregation layer's front proxy (and what kube-controller-manager
                # reads back from kube-system/extension-apiserver-authentication).
                f"--requestheader-client-ca-file={pki / 'ca.crt'}",
                "--requestheader-allowed-names=front-proxy-client",
                "--requestheader-username-headers=X-Remote-User",
                "--requestheader-group-headers=X-Remote-Group",
                "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                f"--proxy-client-cert-file={pki / 'front-proxy-client.crt'}",
                f"--proxy-client-key-file={pki / 'front-proxy-client.key'}",
                f"--service-account-issuer={SERVICE_ACCOUNT_ISSUER}",
                f"--service-account-key-file={pki / 'sa.pub'}",
                f"--service-account-signing-key-file={pki / 'sa.key'}",
                f"--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}",
                "--authorization-mode=Node,RBAC",
                "--allow-privileged=true",
                "--endpoint-reconciler-type="
                + ("none" if self.bind_address == "127.0.0.1" else "lease"),
                f"--audit-policy-file={policy}",
                f"--audit-log-path={self.audit_log}",
                "--audit-log-format=json",
                "--audit-log-mode=blocking",
                "--audit-log-maxsize=0",
                "--profiling=false",
                "--v=1",
            ],
        )

        def ready() -> bool:
            status, _ = self.request("GET", "/readyz")
            return status == 200

        self._wait(apiserver, f"kube-apiserver at {self.server}/readyz", ready, deadline)

    def _start_controller_manager(self, deadline: float) -> None:
        pki = self.pki_dir
        kubeconfig = self.workdir / "controller-manager.kubeconfig"
        kcm = self._spawn(
            "kube-controller-manager",
            [
                str(self.binaries.kube_controller_manager),
                f"--kubeconfig={kubeconfig}",
                f"--authentication-kubeconfig={kubeconfig}",
                f"--authorization-kubeconfig={kubeconfig}",
                "--bind-address=127.0.0.1",
                f"--secure-port={self._kcm_port}",
                f"--cert-dir={self.workdir / 'controller-manager-certs'}",
                f"--service-account-private-key-file={pki / 'sa.key'}",
                f"--root-ca-file={pki / 'ca.crt'}",
                "--use-service-account-credentials=true",
                f"--controllers={','.join(self.controllers)}",
                "--leader-elect=false",
                "--profiling=false",
                "--v=1",
            ],
        )
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE

        def healthy() -> bool:
            url = f"https://127.0.0.1:{self._kcm_port}/healthz"
            with urllib.request.urlopen(url, context=insecure, timeout=2) as r:
                return bool(r.status == 200)

        self._wait(kcm, "kube-controller-manager /healthz", healthy, deadline)

        def default_service_account() -> bool:
            status, _ = self.request("GET", "/api/v1/namespaces/default/serviceaccounts/default")
            return status == 200

        # The serviceaccount controller runs with its own credentials: once it has made
        # the default ServiceAccount, the controllers are up and authorised.
        self._wait(kcm, "the 'default' ServiceAccount", default_service_account, deadline)

    def _start_scheduler(self, deadline: float) -> None:
        kubeconfig = self.workdir / "scheduler.kubeconfig"
        scheduler = self._spawn(
            "kube-scheduler",
            [
                str(self.binaries.kube_scheduler),
                f"--kubeconfig={kubeconfig}",
                f"--authentication-kubeconfig={kubeconfig}",
                f"--authorization-kubeconfig={kubeconfig}",
                "--bind-address=127.0.0.1",
                f"--secure-port={self._scheduler_port}",
                "--leader-elect=false",
                "--profiling=false",
                "--v=1",
            ],
        )
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE

        def healthy() -> bool:
            url = f"https://127.0.0.1:{self._scheduler_port}/healthz"
            with urllib.request.urlopen(url, context=insecure, timeout=2) as r:
                return bool(r.status == 200)

        self._wait(scheduler, "kube-scheduler /healthz", healthy, deadline)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _kill_group(process: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM the process group, SIGKILL it after ``grace`` seconds, reap the leader."""
    if process.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
            return
