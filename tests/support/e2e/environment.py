"""The e2e cluster: a Kubernetes in which pods really run, on this machine.

    with E2ECluster(find_binaries(), workdir) as cluster:
        cluster.kubectl("apply", "-f", "manifests/")
        cluster.pod_log("ns", "pod", "container")

Parts, in the order they start (``stop`` undoes them all, newest first, also on failure):
1. the network (``network.NodeNetwork``): a node network namespace with a bridge, linked
   to the root namespace;
2. the control plane (``ControlPlane``): etcd, kube-apiserver listening on the root side
   of that link, kube-controller-manager and kube-scheduler;
3. CoreDNS (kubernetes plugin) in the node namespace, behind the ``kube-system/kube-dns``
   Service at ``DNS_SERVICE_IP`` (an EndpointSlice pointing at the node's bridge address);
4. kube-proxy (iptables mode) in the node namespace: its rules live and die there;
5. the node agent (``node_agent``) in the node namespace: it registers the Node, runs its
   pods and probes them from a node address, as a kubelet does;
6. kube-router's network-policy controller (its firewall only: no routing, no service
   proxy) in the node namespace, so NetworkPolicies are enforced on the pods' bridged
   traffic as a policy-enforcing CNI does; its iptables rules and ipsets die with the node
   namespace too.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from support.k8s_control_plane import DEFAULT_CONTROLLERS, Binaries, ControlPlane

from .kube_rest import ApiError, KubeRest
from .network import NodeNetwork, in_netns

NODE_NAME = "e2e-node-0"
CLUSTER_DOMAIN = "cluster.local"
DNS_SERVICE_IP = "10.0.0.10"
TESTS_DIR = Path(__file__).resolve().parents[2]
_PR_SET_PDEATHSIG = 1
_libc: Any = ctypes.CDLL(None, use_errno=True)

# The image's environment (Dockerfile's ENV), besides PATH; the processor-specific OpenBLAS
# settings of this machine, when present, go to every pod as they would be on a node here.
IMAGE_ENV = {
    "PYTHONUNBUFFERED": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "TFCLUSTER_DIRECT_PORT": "2223",
}
PASSED_THROUGH = ("PYTHONPATH", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

COREFILE = """.:53 {{
    errors
    health :8080
    ready :8181
    kubernetes {domain} in-addr.arpa ip6.arpa {{
        kubeconfig {kubeconfig} tfcluster-test
        pods insecure
        ttl 5
        fallthrough in-addr.arpa ip6.arpa
    }}
    cache 5
}}
"""


class E2EError(RuntimeError):
    """A part of the e2e cluster failed to start; the message carries its log's tail."""


def _die_with_parent() -> None:
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _tail(path: Path, lines: int = 30) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


class E2ECluster:
    def __init__(self, binaries: Binaries, workdir: Path, *, start_timeout: float = 180.0) -> None:
        self.binaries = binaries
        self.workdir = workdir
        self.start_timeout = start_timeout
        self.network = NodeNetwork()
        self.plane: ControlPlane | None = None
        self._processes: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.agent_dir = workdir / "node-agent"
        self.enforces_network_policies = False

    # ---------------------------------------------------------------- lifecycle

    def __enter__(self) -> E2ECluster:
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
        atexit.register(self.stop)
        deadline = time.monotonic() + self.start_timeout
        try:
            self.network.create()
            self.plane = ControlPlane(
                self.binaries,
                self.workdir / "control-plane",
                bind_address=self.network.api_address,
                scheduler=True,
                controllers=DEFAULT_CONTROLLERS,
                start_timeout=self.start_timeout,
            )
            self.plane.workdir.mkdir(parents=True, exist_ok=True)
            self.plane.start()
            self.api = KubeRest(self.plane.admin_kubeconfig)
            self._dns_service()
            self._start_coredns(deadline)
            self._start_kube_proxy(deadline)
            self._start_agent(deadline)
            self._start_network_policy(deadline)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop kube-router, the node agent (its pods), kube-proxy, CoreDNS, the control plane; then
        delete every network namespace (and so every veth and iptables rule) made."""
        while self._processes:
            _, process = self._processes.pop()
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        if self.plane is not None:
            self.plane.stop()
            self.plane = None
        self.network.destroy()
        self._remove_mount_points()
        atexit.unregister(self.stop)

    def _remove_mount_points(self) -> None:
        listing = self.agent_dir / "created-mount-points"
        if not listing.exists():
            return
        for line in sorted(set(listing.read_text().splitlines()), key=len, reverse=True):
            path = Path(line)
            # Only empty folders made for mounts: never anything with files in it.
            with contextlib.suppress(OSError):
                for sub in sorted(path.rglob("*"), key=lambda p: len(str(p)), reverse=True):
                    sub.rmdir()
                path.rmdir()
        listing.unlink()

    # ---------------------------------------------------------------- access

    @property
    def admin_kubeconfig(self) -> Path:
        assert self.plane is not None
        return self.plane.admin_kubeconfig

    def kubectl(self, *args: str, check: bool = True, timeout: float = 60) -> str:
        done = subprocess.run(
            [str(self.binaries.kubectl), f"--kubeconfig={self.admin_kubeconfig}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise E2EError(f"kubectl {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return done.stdout

    def pod_dir(self, namespace: str, name: str) -> Path | None:
        """The newest folder the agent keeps for pod ``name`` (logs, launch specs)."""
        found = sorted(
            (self.agent_dir / "pods").glob(f"{namespace}_{name}_*"),
            key=lambda p: p.stat().st_mtime,
        )
        return found[-1] if found else None

    def pod_log(self, namespace: str, name: str, container: str) -> str:
        folder = self.pod_dir(namespace, name)
        if folder is None:
            return ""
        return _tail(folder / f"{container}.log", 200)

    def agent_log(self, lines: int = 60) -> str:
        return _tail(self.workdir / "node-agent.log", lines)

    def fetch_from_node(self, url: str, timeout: float = 10) -> str:
        """``url``'s body fetched from the node's namespace (as a node-level scraper does:
        NetworkPolicies let the node in, not the root side of its link)."""
        code = (
            "import sys, urllib.request\n"
            "with urllib.request.urlopen(sys.argv[1], timeout=float(sys.argv[2])) as r:\n"
            "    sys.stdout.write(r.read().decode())\n"
        )
        done = subprocess.run(
            self.in_node([sys.executable, "-c", code, url, str(timeout)]),
            capture_output=True,
            text=True,
            timeout=timeout + 30,
            check=False,
        )
        if done.returncode != 0:
            raise E2EError(f"GET {url} from the node failed: {done.stderr.strip()[-500:]}")
        return done.stdout

    def in_node(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run in the node's network namespace (where Service IPs work)."""
        return in_netns(self.network.node_netns, argv)

    # ---------------------------------------------------------------- parts

    def _spawn(self, name: str, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        log = self.workdir / f"{name}.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                env=env,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self._processes.append((name, process))

    def _wait(self, name: str, what: str, ready: Callable[[], bool], deadline: float) -> None:
        process = dict(self._processes)[name]
        while True:
            if process.poll() is not None:
                raise E2EError(
                    f"{name} exited with {process.returncode} before {what}:\n"
                    + _tail(self.workdir / f"{name}.log")
                )
            with contextlib.suppress(Exception):
                if ready():
                    return
            if time.monotonic() > deadline:
                raise E2EError(
                    f"timed out waiting for {what}:\n" + _tail(self.workdir / f"{name}.log")
                )
            time.sleep(0.3)

    def _dns_service(self) -> None:
        """kube-system/kube-dns at DNS_SERVICE_IP, its one endpoint CoreDNS on the node."""
        ports = [
            {"name": "dns", "port": 53, "protocol": "UDP"},
            {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
        ]
        self.api.request(
            "POST",
            "/api/v1/namespaces/kube-system/services",
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "kube-dns", "labels": {"k8s-app": "kube-dns"}},
                "spec": {"clusterIP": DNS_SERVICE_IP, "ports": ports},
            },
        )
        self.api.request(
            "POST",
            "/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices",
            {
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "name": "kube-dns-node",
                    "labels": {
                        "kubernetes.io/service-name": "kube-dns",
                        "endpointslice.kubernetes.io/managed-by": "e2e.tfcluster.dev",
                    },
                },
                "addressType": "IPv4",
                "endpoints": [{"addresses": [self.network.node_ip], "conditions": {"ready": True}}],
                "ports": ports,
            },
        )

    def _start_coredns(self, deadline: float) -> None:
        corefile = self.workdir / "Corefile"
        corefile.write_text(
            COREFILE.format(domain=CLUSTER_DOMAIN, kubeconfig=self.admin_kubeconfig)
        )
        self._spawn("coredns", self.in_node([str(self.binaries.coredns), "-conf", str(corefile)]))

        def ready() -> bool:
            url = f"http://{self.network.node_ip}:8181/ready"
            with urllib.request.urlopen(url, timeout=2) as r:
                return bool(r.status == 200)

        self._wait("coredns", "CoreDNS /ready", ready, deadline)

    def _start_kube_proxy(self, deadline: float) -> None:
        self._spawn(
            "kube-proxy",
            self.in_node(
                [
                    str(self.binaries.kube_proxy),
                    f"--kubeconfig={self.admin_kubeconfig}",
                    f"--hostname-override={NODE_NAME}",
                    "--proxy-mode=iptables",
                    f"--cluster-cidr={self.network.pod_cidr}",
                    # Leave the (machine-wide) conntrack sysctls alone.
                    "--conntrack-max-per-core=0",
                    "--conntrack-tcp-timeout-established=0",
                    "--conntrack-tcp-timeout-close-wait=0",
                    "--metrics-bind-address=127.0.0.1:10249",
                    "--healthz-bind-address=127.0.0.1:10256",
                    "--v=1",
                ]
            ),
        )

        def synced() -> bool:
            rules = subprocess.run(
                self.in_node(["iptables", "-t", "nat", "-S", "KUBE-SERVICES"]),
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            return DNS_SERVICE_IP in rules

        self._wait("kube-proxy", "kube-proxy's rule for the kube-dns Service", synced, deadline)

    def _start_network_policy(self, deadline: float) -> None:
        """kube-router enforcing NetworkPolicies (after the node agent: it reads its Node);
        where build.sh could not build it, policies are not enforced (and the scenario that
        needs them skips, saying so)."""
        if self.binaries.kube_router is None:
            return
        self.enforces_network_policies = True
        self._spawn(
            "kube-router",
            self.in_node(
                [
                    str(self.binaries.kube_router),
                    f"--kubeconfig={self.admin_kubeconfig}",
                    f"--hostname-override={NODE_NAME}",
                    "--run-firewall=true",
                    "--run-router=false",
                    "--run-service-proxy=false",
                    "--enable-cni=false",
                    "--enable-pod-egress=false",
                    "--health-port=0",
                    "--v=1",
                ]
            ),
        )

        def synced() -> bool:
            chains = subprocess.run(
                self.in_node(["iptables", "-t", "filter", "-S"]),
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            return "-N KUBE-ROUTER-FORWARD" in chains

        self._wait("kube-router", "kube-router's network-policy chains", synced, deadline)

    def _start_agent(self, deadline: float) -> None:
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        image_env = dict(IMAGE_ENV)
        image_env.update({k: os.environ[k] for k in PASSED_THROUGH if os.environ.get(k)})
        config = {
            "node_name": NODE_NAME,
            "kubeconfig": str(self.admin_kubeconfig),
            "workdir": str(self.agent_dir),
            "network_pid": self.network.pid,
            "network_index": self.network.index,
            "dns_ip": DNS_SERVICE_IP,
            "cluster_domain": CLUSTER_DOMAIN,
            "venv": sys.prefix,
            "image_env": image_env,
            "tests_dir": str(TESTS_DIR),
        }
        config_file = self.workdir / "node-agent.json"
        config_file.write_text(json.dumps(config, indent=2))
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")])
            ),
        }
        # In the node's namespace, as a kubelet lives in its host's: probes come from a node
        # address, which NetworkPolicies do not filter.
        self._spawn(
            "node-agent",
            self.in_node([sys.executable, "-m", "support.e2e.node_agent", str(config_file)]),
            env,
        )

        def node_ready() -> bool:
            node = self.api.get(f"/api/v1/nodes/{NODE_NAME}")
            conditions = {c["type"]: c["status"] for c in node["status"].get("conditions", [])}
            return conditions.get("Ready") == "True"

        self._wait("node-agent", f"Node {NODE_NAME} Ready", node_ready, deadline)


def wait_for(what: str, check: Callable[[], Any], timeout: float, interval: float = 0.5) -> Any:
    """``check()``'s first truthy result within ``timeout`` seconds (API errors retried)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = check()
        except (ApiError, OSError, E2EError) as err:
            last, result = err, None
        if result:
            return result
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what} (last error: {last})")


__all__ = ["CLUSTER_DOMAIN", "DNS_SERVICE_IP", "NODE_NAME", "E2ECluster", "E2EError", "wait_for"]
