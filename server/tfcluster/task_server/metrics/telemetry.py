"""A task server's metrics, started: the registry and its HTTP endpoint, or nothing."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from tfcluster.framework import errors
from tfcluster.task_server.metrics.endpoint import MetricsEndpoint
from tfcluster.task_server.metrics.families import ServerMetrics
from tfcluster.task_server.ports import PortChoice

log = logging.getLogger("tfcluster.metrics")


@dataclass
class ServerTelemetry:
    """What a Server holds when metrics are on: the metrics and their endpoint."""

    metrics: ServerMetrics
    endpoint: MetricsEndpoint

    @property
    def port(self) -> int:
        return self.endpoint.port

    def close(self) -> None:
        self.endpoint.close()


def start_telemetry(
    job: str,
    task_index: int,
    task: str,
    choice: PortChoice,
    address: str = "",
    serving: Callable[[], bool] | None = None,
) -> ServerTelemetry | None:
    """Metrics for a new server, served over HTTP at once on `address` ('': every
    interface), with /healthz answering whether `serving()`; None when they are off or (a
    port that may be given up) the port cannot be bound. A required port that cannot be
    bound fails the server (UnknownError)."""
    if choice.port is None:
        return None
    metrics = ServerMetrics(job, task_index)
    try:
        endpoint = MetricsEndpoint(metrics.registry, choice.port, address, serving)
    except OSError as e:
        where = f"metrics port {choice.port} of task {task}"
        if choice.required:
            raise errors.UnknownError(
                None, None, f"Could not start the metrics endpoint: {where}: {e.strerror or e}"
            ) from None
        log.warning("serving no metrics: %s (from %s): %s", where, choice.source, e.strerror or e)
        return None
    return ServerTelemetry(metrics, endpoint)
