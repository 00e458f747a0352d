"""Ports for servers a test starts: chosen below the machine's ephemeral range, so the
outgoing connections made meanwhile (gRPC channels, kube-apiserver to etcd) cannot take a
port between the choice and the server's bind, as a port the kernel handed out can be."""

from __future__ import annotations

import random
import socket


def _ephemeral_range() -> tuple[int, int]:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(x) for x in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


# Ports this process handed out: a port chosen but not bound yet looks free, and two calls
# (an operator's metrics and health ports, say) must not both get it.
_handed_out: set[int] = set()


def free_ports(n: int) -> list[int]:
    """n distinct ports that were free a moment ago, chosen below the ephemeral range so the
    machine's outgoing connections (other tests, gRPC channels) do not take them meanwhile,
    and never one this process handed out before."""
    low, _ = _ephemeral_range()
    first = max(1024, low - 12000)
    rng = random.Random()
    ports: list[int] = []
    while len(ports) < n:
        if len(_handed_out) > (low - 10 - first) // 2:
            _handed_out.clear()  # a long session: ports from long ago are free again
        port = rng.randrange(first, low - 10)
        if port not in _handed_out and _bindable(port):
            _handed_out.add(port)
            ports.append(port)
    return ports


def _bindable(port: int) -> bool:
    for family, host in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        try:
            s = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue
        try:
            s.bind((host, port))
        except OSError:
            return False
        finally:
            s.close()
    return True


def free_port() -> int:
    """One port that was free a moment ago (see free_ports)."""
    return free_ports(1)[0]
