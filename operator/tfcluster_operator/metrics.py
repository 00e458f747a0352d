"""The operator's own Prometheus metrics (served by ``serve`` on the metrics port)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from typing import Any

from prometheus_client import REGISTRY as DEFAULT_REGISTRY
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from .status import PHASES


class OperatorMetrics:
    """Reconciles (count, duration, errors), TFClusters by phase, tasks ready/desired."""

    def __init__(self, registry: CollectorRegistry = DEFAULT_REGISTRY) -> None:
        self.registry = registry
        self.reconciles = Counter(
            "tfcluster_operator_reconciles",
            "Syncs of a TFCluster (one per batch of its events; most change nothing), by "
            "result (success, invalid, rejected, error).",
            ["result"],
            registry=registry,
        )
        self.reconcile_errors = Counter(
            "tfcluster_operator_reconcile_errors",
            "Reconciles that failed, by the step that failed.",
            ["step"],
            registry=registry,
        )
        self.reconcile_duration = Histogram(
            "tfcluster_operator_reconcile_duration_seconds",
            "How long one sync of a TFCluster took.",
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
            registry=registry,
        )
        self.status_updates = Counter(
            "tfcluster_operator_status_updates",
            "Status writes to TFClusters (only changes are written).",
            registry=registry,
        )
        self.api_requests = Counter(
            "tfcluster_operator_api_requests",
            "Requests the reconciler made to the API server (kopf's watches not included), "
            "by verb, kind and HTTP status (0: no answer).",
            ["verb", "kind", "code"],
            registry=registry,
        )
        self.drift_repairs = Counter(
            "tfcluster_operator_drift_repairs",
            "Children driven back to their TFCluster's spec after someone changed them.",
            ["kind"],
            registry=registry,
        )
        self.clusters = Gauge(
            "tfcluster_operator_clusters",
            "TFClusters this operator manages, by phase.",
            ["phase"],
            registry=registry,
        )
        self.tasks_desired = Gauge(
            "tfcluster_operator_tasks_desired",
            "Tasks a TFCluster's job should run.",
            ["namespace", "cluster", "job"],
            registry=registry,
        )
        self.tasks_ready = Gauge(
            "tfcluster_operator_tasks_ready",
            "Tasks of a TFCluster's job that are ready.",
            ["namespace", "cluster", "job"],
            registry=registry,
        )
        self._lock = threading.Lock()
        self._phases: dict[tuple[str, str], str] = {}
        self._jobs: dict[tuple[str, str], set[str]] = {}
        for phase in PHASES:
            self.clusters.labels(phase).set(0)

    def count_request(self, verb: str, kind: str, code: int) -> None:
        self.api_requests.labels(verb, kind, str(code)).inc()

    def observe(self, namespace: str, name: str, status: Mapping[str, Any]) -> None:
        """Record a TFCluster's current status."""
        key = (namespace, name)
        jobs = {str(j["name"]): j for j in status.get("jobs") or []}
        with self._lock:
            self._phases[key] = str(status.get("phase", ""))
            for job in self._jobs.get(key, set()) - set(jobs):
                self._drop_job(namespace, name, job)
            self._jobs[key] = set(jobs)
            for job, js in jobs.items():
                self.tasks_desired.labels(namespace, name, job).set(int(js.get("desired", 0)))
                self.tasks_ready.labels(namespace, name, job).set(int(js.get("ready", 0)))
            self._set_phases()

    def forget(self, namespace: str, name: str) -> None:
        """A TFCluster is gone: drop its series."""
        key = (namespace, name)
        with self._lock:
            self._phases.pop(key, None)
            for job in self._jobs.pop(key, set()):
                self._drop_job(namespace, name, job)
            self._set_phases()

    def _drop_job(self, namespace: str, name: str, job: str) -> None:
        for gauge in (self.tasks_desired, self.tasks_ready):
            with contextlib.suppress(KeyError):
                gauge.remove(namespace, name, job)

    def _set_phases(self) -> None:
        counts = dict.fromkeys(PHASES, 0)
        for phase in self._phases.values():
            counts[phase] = counts.get(phase, 0) + 1
        for phase, count in counts.items():
            self.clusters.labels(phase).set(count)


def serve(port: int, registry: CollectorRegistry = DEFAULT_REGISTRY) -> None:
    """Serve /metrics on ``port`` in a background thread (0: do nothing)."""
    if port:
        start_http_server(port, registry=registry)
