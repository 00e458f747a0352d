"""tf.test.create_local_cluster: worker and ps task servers in this process, on free ports of
localhost, as one cluster."""

from __future__ import annotations

import socket
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.task_server.server import Server


def _free_ports(n: int) -> list[int]:
    """n distinct ports that were free a moment ago (all bound at once, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("localhost", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def create_local_cluster(
    num_workers: int,
    num_ps: int,
    protocol: str = "grpc",
    worker_config: Any = None,
    ps_config: Any = None,
) -> tuple[list[Server], list[Server]]:
    """(worker servers, ps servers), started; the cluster's jobs are "worker" and, when
    num_ps > 0, "ps". Connect a session with tf.Session(workers[0].target)."""
    ports = _free_ports(num_workers + num_ps)
    cluster: dict[str, list[str]] = {"worker": [f"localhost:{p}" for p in ports[:num_workers]]}
    if num_ps > 0:
        cluster["ps"] = [f"localhost:{p}" for p in ports[num_workers:]]
    spec = ClusterSpec(cluster)
    workers = [
        Server(spec, job_name="worker", task_index=i, protocol=protocol, config=worker_config)
        for i in range(num_workers)
    ]
    ps_servers = [
        Server(spec, job_name="ps", task_index=i, protocol=protocol, config=ps_config)
        for i in range(num_ps)
    ]
    return workers, ps_servers
