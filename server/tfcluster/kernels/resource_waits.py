"""What the kernels of task-held resources (queues, readers, accumulators) share: waiting on a
condition while the step may end, TF's shape checks, and the resource's name in its
ResourceMgr."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.tensor_shape import TensorShape

# How often a blocked kernel wakes up to check for cancellation even without a notify.
POLL_SECS = 0.05


def wait_until(cond: threading.Condition, ready: Callable[[], bool], ctx: Any) -> None:
    """Waits (holding `cond`) until ready(); raises if the step ends first (its deadline, a
    cancellation, or an abort of its rendezvous)."""
    while not ready():
        left = ctx.time_left()  # raises CancelledError / DeadlineExceededError
        aborted = getattr(ctx.rendezvous, "_aborted", None)
        if aborted is not None:
            raise errors.CancelledError(None, None, f"Step was aborted: {aborted}")
        cond.wait(POLL_SECS if left is None else min(POLL_SECS, left))


def shape_ok(shape: TensorShape, got: Sequence[int]) -> bool:
    """Whether a value of shape `got` fits `shape` (unknown dimensions match any size)."""
    if shape.ndims is None:
        return True
    want = shape.as_list()
    return len(want) == len(got) and all(w is None or w == g for w, g in zip(want, got))


def shape_text(shape: TensorShape | Sequence[int | None]) -> str:
    """TF's DebugString of a (partial) shape: [2,3], [?,2], <unknown>."""
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "<unknown>"
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class ResourceName:
    """A resource's (container, name) in its task's ResourceMgr: the shared name, or one
    private to this kernel, `_<id>_<node name>` with an id from the task's ResourceMgr (TF's
    ContainerInfo), fixed on the kernel's first run."""

    def __init__(self, node: Any) -> None:
        self.container = node.attrs.get("container") or ""
        self._shared = node.attrs.get("shared_name") or ""
        if isinstance(self._shared, bytes):
            self._shared = self._shared.decode()
        self._node_name = node.name
        self._private: str | None = None
        self._lock = threading.Lock()

    def resolve(self, resources: Any) -> str:
        if self._shared:
            return str(self._shared)
        if self._private is None:
            with self._lock:
                if self._private is None:
                    self._private = f"_{resources.unique_id()}_{self._node_name}"
        return self._private
