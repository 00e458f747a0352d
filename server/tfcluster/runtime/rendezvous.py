"""Per-step tensor exchange between Send and Recv kernels (and, remotely, RecvTensor)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tfcluster.framework import errors

RecvCallback = Callable[[Any, BaseException | None], None]


def make_key(send_device: str, recv_device: str, tensor_name: str) -> str:
    return f"{send_device};{recv_device};{tensor_name}"


def parse_key(key: str) -> tuple[str, str, str]:
    parts = key.split(";")
    if len(parts) != 3:
        raise errors.InvalidArgumentError(None, None, f"Malformed rendezvous key '{key}'")
    return parts[0], parts[1], parts[2]


class Rendezvous:
    """One step's table: a value waits for its receiver, or a receiver waits for its value."""

    __slots__ = ("_aborted", "_dropped", "_lock", "_values", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}
        self._waiters: dict[str, list[RecvCallback]] = {}
        self._aborted: BaseException | None = None
        # Set when its manager dropped it idle: a receiver that still found it asks again.
        self._dropped = False

    def send(self, key: str, value: Any) -> None:
        with self._lock:
            if self._aborted is not None:
                raise self._aborted
            waiters = self._waiters.pop(key, None)
            if waiters is None:
                if key in self._values:
                    raise errors.AbortedError(None, None, f"Duplicated send: {key}")
                self._values[key] = value
                return
        for cb in waiters:
            cb(value, None)

    def recv_async(self, key: str, callback: RecvCallback) -> None:
        self._recv_unless_dropped(key, callback)

    def _recv_unless_dropped(self, key: str, callback: RecvCallback) -> bool:
        """recv_async; False (nothing done) if the table was dropped meanwhile."""
        with self._lock:
            if self._dropped:
                return False
            if self._aborted is not None:
                err: BaseException | None = self._aborted
            elif key in self._values:
                value = self._values.pop(key)
                err = None
            else:
                self._waiters.setdefault(key, []).append(callback)
                return True
        callback(None if err else value, err)
        return True

    def cancel_recv(self, key: str, callback: RecvCallback) -> bool:
        """Takes a waiting receiver out (it gave up); whether it was still waiting."""
        with self._lock:
            waiters = self._waiters.get(key)
            if waiters is None or callback not in waiters:
                return False
            waiters.remove(callback)
            if not waiters:
                del self._waiters[key]
            return True

    def recv(self, key: str, timeout: float | None = None) -> Any:
        done = threading.Event()
        box: list[Any] = [None, None]

        def cb(value: Any, err: BaseException | None) -> None:
            box[0], box[1] = value, err
            done.set()

        self.recv_async(key, cb)
        if not done.wait(timeout):
            raise errors.DeadlineExceededError(None, None, f"Timed out waiting for tensor {key}")
        if box[1] is not None:
            raise box[1]
        return box[0]

    def is_idle(self) -> bool:
        """No value waits for its receiver and no receiver waits for a value."""
        with self._lock:
            return not self._values and not self._waiters

    def abort(self, error: BaseException) -> None:
        with self._lock:
            if self._aborted is not None:
                return
            self._aborted = error
            waiters = self._waiters
            self._waiters = {}
            self._values.clear()
        for cbs in waiters.values():
            for cb in cbs:
                cb(None, error)


class RendezvousMgr:
    """A worker's rendezvous tables by step id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._steps: dict[int, Rendezvous] = {}

    def find_or_create(self, step_id: int) -> Rendezvous:
        r = self._steps.get(step_id)
        if r is not None:
            return r
        with self._lock:
            r = self._steps.get(step_id)
            if r is None:
                r = self._steps[step_id] = Rendezvous()
            return r

    def recv_async(self, step_id: int, key: str, callback: RecvCallback) -> Rendezvous:
        """Waits in the step's table (made if need be); the table it waits in."""
        while True:
            r = self.find_or_create(step_id)
            if r._recv_unless_dropped(key, callback):
                return r

    def drop_if_idle(self, step_id: int) -> bool:
        """Removes the step's table if nothing waits in it; whether none is left."""
        with self._lock:
            r = self._steps.get(step_id)
            if r is None:
                return True
            with r._lock:
                if r._values or r._waiters:
                    return False
                r._dropped = True
            del self._steps[step_id]
            return True

    def cleanup(self, step_id: int) -> None:
        with self._lock:
            r = self._steps.pop(step_id, None)
        if r is not None:
            r.abort(errors.AbortedError(None, None, f"Step {step_id} cleaned up"))

    def cleanup_all(self) -> None:
        with self._lock:
            steps = list(self._steps.values())
            self._steps.clear()
        for r in steps:
            r.abort(errors.AbortedError(None, None, "Worker cleaned up all steps"))

    def __len__(self) -> int:
        return len(self._steps)
