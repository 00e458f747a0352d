"""The e2e cluster's network: a node network namespace with a bridge, one namespace per pod.

Layout (``k`` is a free subnet index, picked per environment):

    root netns            node netns ``tfce2e-<pid>-node``         pod netns ``tfce2e-<pid>-p<n>``
    tfce2e<pid> ---veth--- eth0 10.245.k.2/30
    10.245.k.1/30          br0 10.244.k.1/24 ---veth v<n>---------- eth0 10.244.k.<n>/24
    route 10.244.k.0/24 via 10.245.k.2

The API server listens on 10.245.k.1 (the root side of the link), so the node's components
and the pods reach it through the node namespace, which forwards. kube-proxy and CoreDNS run
*inside* the node namespace: every iptables rule kube-proxy writes lives there and goes away
with it. The root namespace only gets the link and one route, both gone when the node
namespace is deleted (deleting a namespace destroys its veths and so their peers). Names
carry the creating process's pid: ``remove_stale`` deletes what a killed run left behind.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "tfce2e"
NETNS_DIR = Path("/run/netns")
POD_SUBNET_BASE = "10.244"
LINK_SUBNET_BASE = "10.245"


class NetworkError(RuntimeError):
    """An ``ip`` command failed; the message has the command and its stderr."""


def ip(*args: str, check: bool = True) -> str:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise NetworkError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def in_netns(netns: str, argv: Sequence[str]) -> list[str]:
    """``argv`` run inside ``netns`` (``ip netns exec``)."""
    return ["ip", "netns", "exec", netns, *argv]


def _write_sysctl(netns: str, key: str, value: str) -> None:
    path = "/proc/sys/" + key.replace(".", "/")
    cmd = in_netns(netns, ["sh", "-c", f"echo {value} > {path}"])
    subprocess.run(cmd, check=True, capture_output=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale() -> list[str]:
    """Delete the namespaces of e2e environments whose process is gone; returns their names."""
    removed: list[str] = []
    if not NETNS_DIR.is_dir():
        return removed
    for entry in sorted(NETNS_DIR.iterdir()):
        match = re.fullmatch(rf"{PREFIX}-(\d+)-.*", entry.name)
        if match and not _pid_alive(int(match.group(1))):
            ip("netns", "del", entry.name, check=False)
            removed.append(entry.name)
    return removed


def _used_subnet_indexes() -> set[int]:
    text = ip("-4", "-o", "addr") + ip("-4", "route")
    used: set[int] = set()
    for base in (POD_SUBNET_BASE, LINK_SUBNET_BASE):
        used.update(int(m) for m in re.findall(rf"\b{re.escape(base)}\.(\d+)\.", text))
    return used


@dataclass
class PodNetwork:
    netns: str
    ip: str
    host_veth: str

    @property
    def netns_path(self) -> Path:
        return NETNS_DIR / self.netns


@dataclass
class NodeNetwork:
    """The node namespace, its bridge and the link to the root namespace (see module doc)."""

    pid: int = field(default_factory=os.getpid)
    index: int = -1
    pods: dict[str, PodNetwork] = field(default_factory=dict)
    _next_host: int = 2

    @property
    def node_netns(self) -> str:
        return f"{PREFIX}-{self.pid}-node"

    @property
    def root_veth(self) -> str:
        return f"{PREFIX}{self.pid}"[:15]

    @property
    def api_address(self) -> str:
        """The root side of the link: where the API server listens."""
        return f"{LINK_SUBNET_BASE}.{self.index}.1"

    @property
    def node_link_address(self) -> str:
        return f"{LINK_SUBNET_BASE}.{self.index}.2"

    @property
    def node_ip(self) -> str:
        """The bridge's address: the node's InternalIP, where CoreDNS listens."""
        return f"{POD_SUBNET_BASE}.{self.index}.1"

    @property
    def pod_cidr(self) -> str:
        return f"{POD_SUBNET_BASE}.{self.index}.0/24"

    def create(self) -> None:
        remove_stale()
        used = _used_subnet_indexes()
        self.index = next(
            i for i in [*range(self.pid % 200 + 20, 250), *range(20, 250)] if i not in used
        )
        node = self.node_netns
        try:
            ip("netns", "add", node)
            ip("-n", node, "link", "set", "lo", "up")
            ip("link", "add", self.root_veth, "type", "veth", "peer", "name", "eth0", "netns", node)
            ip("addr", "add", f"{self.api_address}/30", "dev", self.root_veth)
            ip("link", "set", self.root_veth, "up")
            ip("-n", node, "addr", "add", f"{self.node_link_address}/30", "dev", "eth0")
            ip("-n", node, "link", "set", "eth0", "up")
            ip("-n", node, "link", "add", "br0", "type", "bridge")
            ip("-n", node, "addr", "add", f"{self.node_ip}/24", "dev", "br0")
            ip("-n", node, "link", "set", "br0", "up")
            ip("-n", node, "route", "add", "default", "via", self.api_address)
            ip("route", "add", self.pod_cidr, "via", self.node_link_address, "dev", self.root_veth)
            # The node routes between pods and the root side; bridged traffic goes through
            # iptables so that kube-proxy's DNAT sees pod-to-pod Service traffic.
            _write_sysctl(node, "net.ipv4.ip_forward", "1")
            _write_sysctl(node, "net.bridge.bridge-nf-call-iptables", "1")
        except BaseException:
            self.destroy()
            raise

    def add_pod(self, key: str) -> PodNetwork:
        """A namespace on the bridge for pod ``key`` (its uid), with the next free address."""
        n = self._allocate()
        pod = PodNetwork(
            f"{PREFIX}-{self.pid}-p{n}", f"{POD_SUBNET_BASE}.{self.index}.{n}", f"v{n}"
        )
        node = self.node_netns
        try:
            ip("netns", "add", pod.netns)
            ip("-n", node, "link", "add", pod.host_veth, "type", "veth", "peer", "name", "eth0",
               "netns", pod.netns)  # fmt: skip
            ip("-n", node, "link", "set", pod.host_veth, "master", "br0")
            # Hairpin: a pod reaching itself through a Service comes back on its own port.
            ip("-n", node, "link", "set", pod.host_veth, "type", "bridge_slave", "hairpin", "on")
            ip("-n", node, "link", "set", pod.host_veth, "up")
            ip("-n", pod.netns, "link", "set", "lo", "up")
            ip("-n", pod.netns, "addr", "add", f"{pod.ip}/24", "dev", "eth0")
            ip("-n", pod.netns, "link", "set", "eth0", "up")
            ip("-n", pod.netns, "route", "add", "default", "via", self.node_ip)
        except BaseException:
            ip("netns", "del", pod.netns, check=False)
            raise
        self.pods[key] = pod
        return pod

    def remove_pod(self, key: str) -> None:
        pod = self.pods.pop(key, None)
        if pod is not None:
            ip("netns", "del", pod.netns, check=False)  # takes the veth pair with it

    def destroy(self) -> None:
        """Remove every pod namespace, then the node's (its iptables rules, bridge, link)."""
        for key in list(self.pods):
            self.remove_pod(key)
        if NETNS_DIR.is_dir():
            for entry in NETNS_DIR.iterdir():
                if entry.name.startswith(f"{PREFIX}-{self.pid}-"):
                    ip("netns", "del", entry.name, check=False)
        with contextlib.suppress(NetworkError):
            ip("link", "del", self.root_veth)  # gone already with the node namespace

    def _allocate(self) -> int:
        used = {int(ipaddress.ip_address(p.ip).packed[3]) for p in self.pods.values()}
        for _ in range(253):
            n = self._next_host
            self._next_host = 2 if n >= 254 else n + 1
            if n not in used:
                return n
        raise NetworkError(f"no free address left in {self.pod_cidr}")
