"""tf.debugging.get/set_log_device_placement. In TF 1.15 these set the eager context's flag,
which the context's config carries: a tf.Session made without a config logs placements
(client/context_config.py), one given a ConfigProto follows its log_device_placement."""

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
