"""The distribute coordinator's current worker context (TF 1.15's
distribute_coordinator_context.py): set by lib/distribute/distribute_coordinator.py while a
task's worker function runs, read by MonitoredTrainingSession."""

from __future__ import annotations

import threading
from typing import Any

_worker_context = threading.local()


def get_current_worker_context() -> Any:
    return getattr(_worker_context, "current", None)


def set_current_worker_context(context: Any) -> None:
    _worker_context.current = context
