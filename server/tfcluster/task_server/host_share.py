"""How many tasks of a cluster run on this host: they share its CPUs.

A cluster started as plain processes on one machine (1 ps + 2 workers on localhost) has every
task see all the cores; each sizing its pools to all of them oversubscribes the machine
(three BLAS pools spinning on two cores). A server counts the tasks whose addresses name this
host, from its cluster spec alone (no name lookups: they could hang), and shares the CPUs
out between them when no thread settings are given.
"""

from __future__ import annotations

import socket

from tfcluster.distributed.cluster_spec import ClusterSpec

_LOOPBACK = {"localhost", "localhost.localdomain", "ip6-localhost", "::1", "0.0.0.0", "::"}


def host_of(address: str) -> str:
    """The host part of 'host:port' or '[v6]:port', lowercased."""
    if address.startswith("["):
        return address[1:].partition("]")[0].lower()
    return address.rpartition(":")[0].lower() if ":" in address else address.lower()


def is_this_host(host: str, names: frozenset[str] | None = None) -> bool:
    """Whether `host` names this machine: loopback, or its own host name."""
    own = names if names is not None else own_host_names()
    return host in _LOOPBACK or host.startswith("127.") or host in own


def own_host_names() -> frozenset[str]:
    name = socket.gethostname().lower()
    return frozenset({name, name.split(".")[0]})


def tasks_on_this_host(cluster: ClusterSpec, names: frozenset[str] | None = None) -> int:
    """Tasks of `cluster` whose address is on this host (at least 1: the server's own)."""
    own = names if names is not None else own_host_names()
    count = 0
    for job in cluster.jobs:
        for address in cluster.job_tasks(job):
            if address and is_this_host(host_of(address), own):
                count += 1
    return max(1, count)
