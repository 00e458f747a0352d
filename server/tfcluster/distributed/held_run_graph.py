"""A remote partition's RunGraph held back until the master's own partition has sent what the
request pushes (see runtime/early_sends.py): the master's thread sends it from inside its own
partition's _Send (or whichever thread runs that kernel), then goes on with that partition."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.distributed.interfaces import PendingRunGraph, ReservedRunGraph, WorkerInterface
from tfcluster.runtime import outbox

# start(pushed) sends the RunGraph with the pushed (key, value) tensors.
Start = Callable[[Sequence[tuple[str, Any]]], PendingRunGraph]

_WAITING, _STARTED, _OVER = range(3)


class HeldRunGraph:
    """Takes the tensors under `keys` from the master's own step as its partition sends them
    (so nobody asks for them later), and sends the RunGraph once all have come."""

    def __init__(
        self,
        reserved: ReservedRunGraph,
        keys: Sequence[str],
        start: Start,
        on_error: Callable[[BaseException], None],
    ) -> None:
        self._reserved = reserved
        self._keys = tuple(keys)
        self._start = start
        self._on_error = on_error
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}
        self._state = _WAITING
        self._cancels: list[Callable[[], Any]] = []
        self._sent = threading.Event()
        self.pending: PendingRunGraph | None = None

    def watch(self, local: WorkerInterface, step_id: int) -> None:
        """Waits for the tensors in the step's table on the master's own worker."""
        for key in self._keys:
            cancel = local.recv_tensor(step_id, key, functools.partial(self._arrived, key))
            if cancel is not None:
                self._cancels.append(cancel)

    def _arrived(self, key: str, value: Any, err: BaseException | None) -> None:
        with self._lock:
            if err is not None or self._state != _WAITING:
                return  # the step failed (it is aborted everywhere), or it is over here
            self._values[key] = value
            if len(self._values) < len(self._keys):
                return
            self._state = _STARTED
        self._send()

    def _send(self) -> None:
        """Never raises: it runs inside the _Send that made the last tensor. The messages
        the master's partition holds back go first: its requests for what the task will
        answer (a ps's rows) wait there before the task can answer them, so the task's
        step answers them itself as it sends, not its serving thread after another
        wake-up."""
        box = outbox.current()
        if box is not None:
            box.flush()
        try:
            self.pending = self._start([(k, self._values[k]) for k in self._keys])
        except BaseException as e:
            self._on_error(e)
        finally:
            self._sent.set()

    def finish(self, step_failed: bool) -> PendingRunGraph | None:
        """After the master's partition ran: the RunGraph sent, if it was. If the partition
        ran but some tensor never came (it always comes: every _Send is a target), the
        RunGraph goes with what came and the partition asks for the rest."""
        with self._lock:
            state = self._state
            self._state = _OVER
        if state == _STARTED:
            # A failed partition may end while another of its threads still sends it.
            self._sent.wait()
            return self.pending
        for cancel in self._cancels:
            cancel()
        if step_failed:
            self._reserved.release()
            return None
        # No callback adds a value any more (_OVER): what came is final.
        try:
            return self._start([(k, self._values[k]) for k in self._keys if k in self._values])
        except BaseException as e:
            self._on_error(e)
            return None
