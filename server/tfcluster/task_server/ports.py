"""Ports of a task server: which are free, and the metrics port as its settings give it."""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
from dataclasses import dataclass

from tfcluster.settings import contract

log = logging.getLogger("tfcluster.metrics")

OFF_WORDS = frozenset({"off", "none", "false", "no", "disabled"})


def port_available(port: int) -> bool:
    """Whether nothing listens on `port` on any interface (0 is always available). Checked
    before gRPC binds, which logs its bind failures."""
    if port == 0:
        return True
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError:
            continue
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return False
        finally:
            sock.close()
    return True


LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def listen_hosts(address: str) -> tuple[str, ...]:
    """Where a task whose own address in the cluster spec is `address` listens: loopback
    only for a loopback name or address (nobody else was told of it), else every interface
    (''). IPv6 hosts come bare ('::1')."""
    host = address.rpartition(":")[0].strip("[]").lower() if ":" in address else address
    if host in LOOPBACK_NAMES:
        return ("127.0.0.1", "::1")
    try:
        if ipaddress.ip_address(host).is_loopback:
            return (host,)
    except ValueError:
        pass
    return ("",)


def grpc_host(host: str) -> str:
    """A listen host as gRPC writes it ('' -> every interface)."""
    if not host:
        return "[::]"
    return f"[{host}]" if ":" in host else host


def free_ports(n: int, host: str = "localhost") -> list[int]:
    """n distinct ports that were free a moment ago (all bound at once, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@dataclass(frozen=True)
class PortChoice:
    """A metrics port (None: off), and whether failing to bind it is an error."""

    port: int | None
    required: bool
    source: str


def parse_port(text: str, where: str) -> int | None:
    """'9090' -> 9090, '0' -> 0 (any free port), 'off' or a negative number -> None."""
    value = text.strip().lower()
    if value in OFF_WORDS:
        return None
    try:
        port = int(value)
    except ValueError:
        raise ValueError(
            f"{where} must be a port number, 0 (any free port) or 'off'/-1, not {text!r}"
        ) from None
    if port < 0:
        return None
    if port > 65535:
        raise ValueError(f"{where} must be at most 65535, not {port}")
    return port


def resolve_metrics_port(
    metrics_port: int | str | PortChoice | None, from_environment: str = ""
) -> PortChoice:
    """Server's `metrics_port`: an int or string asks for that port (negative or 'off': no
    metrics), and not getting it is an error; None defers to `from_environment` (the text of
    TFCLUSTER_METRICS_PORT, '': no metrics), where a port that cannot be had only warns; a
    PortChoice is taken as it is (a port that may be given up, say)."""
    if isinstance(metrics_port, PortChoice):
        return metrics_port
    if metrics_port is not None:
        port = parse_port(str(metrics_port), "metrics_port")
        return PortChoice(port, True, "metrics_port")
    if not from_environment:
        return PortChoice(None, False, "default")
    where = contract.METRICS_PORT_ENV
    try:
        return PortChoice(parse_port(from_environment, where), False, where)
    except ValueError as e:
        log.warning("%s; serving no metrics", e)
        return PortChoice(None, False, where)
