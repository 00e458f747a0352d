"""Kernel of WorkerHeartbeat (TF's TPU worker watchdog, driven by
tensorflow/python/tpu/session_support.py): a serialized WorkerHeartbeatRequest configures
this task's watchdog and shutdown mode; the op answers a serialized WorkerHeartbeatResponse.

- watchdog_config.timeout_ms > 0 arms the watchdog: unless another heartbeat comes within
  that time the task shuts down (with WAIT_FOR_COORDINATOR; with SHUTDOWN_AFTER_TIMEOUT it
  shuts down after that time whatever comes). A negative timeout disarms it, 0 keeps it.
- shutdown_mode NOT_CONFIGURED forgets the mode, DEFAULT keeps it.
Shutting down ends the process, as TF's watchdog ends its worker.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any

import numpy as np

from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.protos import worker_heartbeat_pb2 as hb

_log = logging.getLogger("tfcluster.heartbeat")


def _shut_down(reason: str) -> None:
    _log.error("WorkerHeartbeat: %s; shutting down this task", reason)
    logging.shutdown()
    os._exit(1)


class Watchdog:
    """This process's watchdog and shutdown mode."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._timeout_ms = 0
        self.mode = hb.NOT_CONFIGURED

    def heartbeat(self, request: Any) -> Any:
        with self._lock:
            if request.shutdown_mode == hb.NOT_CONFIGURED:
                self.mode = hb.NOT_CONFIGURED
            elif request.shutdown_mode != hb.DEFAULT:
                self.mode = request.shutdown_mode
            timeout = request.watchdog_config.timeout_ms
            if timeout < 0:
                self._timeout_ms = 0
            elif timeout > 0:
                self._timeout_ms = timeout
            shutting_down = self.mode == hb.SHUTDOWN_AFTER_TIMEOUT
            # A SHUTDOWN_AFTER_TIMEOUT timer already running is not pushed back.
            if not (shutting_down and self._timer is not None and timeout == 0):
                self._arm(shutting_down)
        return hb.WorkerHeartbeatResponse(
            health_status=hb.SHUTTING_DOWN if shutting_down else hb.OK,
            hostname=socket.gethostname(),
        )

    def _arm(self, shutting_down: bool) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._timeout_ms > 0:
            reason = (
                "shutdown requested"
                if shutting_down
                else f"no heartbeat for {self._timeout_ms} ms (watchdog)"
            )
            self._timer = threading.Timer(self._timeout_ms / 1000.0, _shut_down, (reason,))
            self._timer.daemon = True
            self._timer.start()


WATCHDOG = Watchdog()


@kernel("WorkerHeartbeat", devices=CPU_ONLY)
def worker_heartbeat(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        value = np.asarray(ins[0])
        if value.ndim != 0:
            raise invalid(f"request must be a scalar string, got shape {list(value.shape)}")
        raw = value.item()
        try:
            request = hb.WorkerHeartbeatRequest.FromString(
                raw if isinstance(raw, bytes) else str(raw).encode()
            )
        except Exception:
            raise invalid("Unable to parse the WorkerHeartbeatRequest") from None
        response = WATCHDOG.heartbeat(request)
        return (np.array(response.SerializeToString(), dtype=object),)

    return compute
