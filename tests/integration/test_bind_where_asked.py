"""A task listens where its address says: one whose own address in the cluster spec is
localhost / 127.0.0.1 listens on loopback only (gRPC, direct streams, metrics), any other on
every interface; metrics listen where asked."""

from __future__ import annotations

import contextlib
import socket
import urllib.request
from collections.abc import Iterator

import pytest
import tfcluster as tf
from support.cluster_processes import free_ports
from tfcluster.task_server.ports import listen_hosts

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def _outside_address() -> str:
    """An address of this machine that is not loopback (skips the test when there is none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent
            address = str(probe.getsockname()[0])
        except OSError:
            address = ""
    if not address or address.startswith("127.") or address == "0.0.0.0":
        pytest.skip("this machine has no address outside loopback")
    return address


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def _server(address_host: str, **kwargs: object) -> Iterator[tf.train.Server]:
    port = free_ports(1)[0]
    server = tf.train.Server(
        {"worker": [f"{address_host}:{port}"]},
        job_name="worker",
        task_index=0,
        metrics_port=0,
        **kwargs,  # type: ignore[arg-type]
    )
    try:
        yield server
    finally:
        server.stop(grace=0.0)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_a_task_with_a_loopback_address_listens_on_loopback_only(host: str) -> None:
    outside = _outside_address()
    with _server(host) as server:
        assert server.metrics_port is not None
        for port in (server.port, server.direct_port, server.metrics_port):
            assert _reachable("127.0.0.1", port)
            assert not _reachable(outside, port), f"port {port} answers on {outside}"
        with tf.Session(server.target) as sess:
            assert sess.run(tf.constant(3)) == 3


def test_a_task_with_another_address_listens_on_every_interface() -> None:
    outside = _outside_address()
    with _server(outside) as server:
        assert server.metrics_port is not None
        for port in (server.port, server.direct_port, server.metrics_port):
            assert _reachable(outside, port) and _reachable("127.0.0.1", port)


def test_metrics_listen_where_asked() -> None:
    outside = _outside_address()
    with _server(outside, metrics_address="127.0.0.1") as server:
        assert server.metrics_port is not None
        assert _reachable("127.0.0.1", server.metrics_port)
        assert not _reachable(outside, server.metrics_port)
        assert _reachable(outside, server.port)
        url = f"http://127.0.0.1:{server.metrics_port}"
        with urllib.request.urlopen(f"{url}/metrics", timeout=5) as reply:
            assert b"tfcluster_" in reply.read()
        with urllib.request.urlopen(f"{url}/healthz", timeout=5) as reply:
            assert reply.status == 200 and reply.read() == b"SERVING\n"


@pytest.mark.parametrize(
    "address, hosts",
    [
        ("localhost:2222", ("127.0.0.1", "::1")),
        ("127.0.0.1:2222", ("127.0.0.1",)),
        ("127.0.0.5:2222", ("127.0.0.5",)),
        ("[::1]:2222", ("::1",)),
        ("10.0.0.7:2222", ("",)),
        ("example-ps-0.example-ps.default.svc:2222", ("",)),
    ],
)
def test_listen_hosts_follow_the_task_address(address: str, hosts: tuple[str, ...]) -> None:
    assert listen_hosts(address) == hosts
