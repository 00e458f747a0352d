"""tf.debugging.get/set_log_device_placement. In TF 1.15 these set the eager context's flag,
which only eager execution reads: graph-mode sessions log placements from
ConfigProto.log_device_placement instead, and tfcluster (graph mode only) keeps the flag so
a program can set and read it back as in TF."""

from __future__ import annotations

import threading

_lock = threading.Lock()
_enabled = False


def set_log_device_placement(enabled: bool) -> None:
    global _enabled
    with _lock:
        _enabled = enabled


def get_log_device_placement() -> bool:
    return _enabled
