"""Ports the tests give the servers they start (task servers, etcd, kube-apiserver,
kube-controller-manager, the operator): never from the ephemeral range, where an outgoing
connection made between the choice and the bind can take the port (kube-controller-manager
once failed to bind its secure port so), and never the same port twice."""

from __future__ import annotations

from support.ports import _ephemeral_range, free_port, free_ports


def test_ports_are_chosen_below_the_ephemeral_range() -> None:
    low, _ = _ephemeral_range()
    ports = free_ports(50) + [free_port() for _ in range(50)]
    assert all(1024 <= port < low for port in ports), ports


def test_a_port_is_never_handed_out_twice() -> None:
    # A chosen port still looks free until its server binds it: separate calls (an
    # operator's metrics and health ports) must still differ.
    ports = [free_port() for _ in range(300)] + free_ports(300)
    assert len(set(ports)) == len(ports)
