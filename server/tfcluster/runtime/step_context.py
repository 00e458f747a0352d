"""What a kernel may use during one step: resources, the step's rendezvous, deadline, tracing."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tfcluster.framework import errors
from tfcluster.runtime.rendezvous import Rendezvous
from tfcluster.runtime.resources import ResourceMgr

# (step id, rendezvous key, callback(value, error)) -> None: pull a tensor from the task that
# sent it.
RemoteRecvFn = Callable[[int, str, Callable[[Any, BaseException | None], None]], None]


class _Flag:
    """Set once, read often: all a step's cancellation needs of threading.Event (nobody waits
    on it), at a fraction of the cost of making one every step."""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


class StepContext:
    __slots__ = (
        "cancelled",
        "deadline",
        "ref_snapshots",
        "remote_recv",
        "rendezvous",
        "resources",
        "step_id",
        "step_stats",
        "trace",
    )

    def __init__(
        self,
        step_id: int,
        resources: ResourceMgr,
        rendezvous: Rendezvous,
        deadline: float | None = None,
        remote_recv: RemoteRecvFn | None = None,
        trace: bool = False,
    ) -> None:
        self.step_id = step_id
        self.resources = resources
        self.rendezvous = rendezvous
        self.deadline = deadline
        self.remote_recv = remote_recv
        self.trace = trace
        self.cancelled = _Flag()
        # Filled by executors when tracing: DeviceStepStats protos.
        self.step_stats: list[Any] = []
        # Fetched variables read as their op ran (Executor(snapshot_ref_fetches=True)).
        self.ref_snapshots: dict[int, Any] | None = None

    def time_left(self) -> float | None:
        """Seconds until the deadline (None: no deadline); raises once it has passed."""
        if self.cancelled.is_set():
            raise errors.CancelledError(None, None, "Step was cancelled")
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise errors.DeadlineExceededError(None, None, "Timed out waiting in a blocking op")
        return left
