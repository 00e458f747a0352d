"""A task server's /metrics scraped while the server is still starting (its endpoint is up
before the master and worker exist) already shows the state series, at zero."""

from __future__ import annotations

from prometheus_client import generate_latest
from tfcluster.task_server.metrics.families import (
    MASTER_SESSIONS,
    WORKER_GRAPHS,
    ServerMetrics,
)


def _samples(metrics: ServerMetrics, name: str) -> list[tuple[dict[str, str], float]]:
    generate_latest(metrics.registry)  # what the endpoint does on each scrape
    return [
        (s.labels, s.value)
        for family in metrics.registry.collect()
        for s in family.samples
        if s.name == name
    ]


def test_state_series_are_zero_before_the_server_watches_its_master_and_worker() -> None:
    metrics = ServerMetrics("ps", 0)
    identity = {"tf_job": "ps", "tf_task": "0"}
    assert _samples(metrics, MASTER_SESSIONS) == [(identity, 0.0)]
    assert _samples(metrics, WORKER_GRAPHS) == [(identity, 0.0)]
