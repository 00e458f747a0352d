"""tf.logging: TF 1.15's logging functions on the standard library's "tensorflow" logger.

As in TF, the logger gets its own stderr handler ("INFO:tensorflow:...") unless the root
logger already has handlers when it is first used; under tf.app.run absl's handler on the root
logger formats records the absl way, and absl's --verbosity sets the root level the logger
inherits. Records carry the file and line of the program's call, not of this module.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import traceback
from logging import DEBUG, ERROR, FATAL, INFO, WARN
from types import CodeType, FrameType
from typing import Any

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "TaskLevelStatusMessage",
    "debug",
    "error",
    "fatal",
    "flush",
    "get_logger",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]

_logger: logging.Logger | None = None
_logger_lock = threading.Lock()
_counts_lock = threading.Lock()
_log_counter_per_token: dict[tuple[str, int], int] = {}

# Frames of these files are never the caller a record names.
_SKIPPED_FILES = frozenset({os.path.normcase(__file__), os.path.normcase(logging.__file__)})


def _caller() -> tuple[CodeType, FrameType] | None:
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if os.path.normcase(frame.f_code.co_filename) not in _SKIPPED_FILES:
            return frame.f_code, frame
        frame = frame.f_back
    return None


def _find_caller(stack_info: bool = False, stacklevel: int = 1) -> tuple[str, int, str, Any]:
    sinfo = "".join(traceback.format_stack()) if stack_info else None
    found = _caller()
    if found is None:
        return "(unknown file)", 0, "(unknown function)", sinfo
    code, frame = found
    return code.co_filename, frame.f_lineno, code.co_name, sinfo


def get_logger() -> logging.Logger:
    """The "tensorflow" logger, set up on first use as TF does."""
    global _logger
    if _logger is not None:
        return _logger
    with _logger_lock:
        if _logger is None:
            logger = logging.getLogger("tensorflow")
            logger.findCaller = _find_caller  # type: ignore[method-assign]
            if not logging.getLogger().handlers:
                interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
                if interactive:
                    logger.setLevel(INFO)
                handler = logging.StreamHandler(sys.stdout if interactive else sys.stderr)
                handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
    return _logger


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


def warn(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    """Logs at FATAL (CRITICAL); like TF's, it does not end the program."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    if condition:
        vlog(level, msg, *args)


def _count_token() -> tuple[str, int]:
    """What log_every_n/log_first_n count calls by, as TF 1.15 does: the first frame, going
    out from the program's call, that is in another file than that call (so the calls of one
    file share a count, and a script's top level counts as ('<unknown>', 0))."""
    found = _caller()
    if found is None:
        return "<unknown>", 0
    caller_file = found[0].co_filename
    frame = found[1].f_back
    while frame is not None:
        if frame.f_code.co_filename != caller_file:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


def _next_count_at_call_site() -> int:
    token = _count_token()
    with _counts_lock:
        count = _log_counter_per_token.get(token, -1) + 1
        _log_counter_per_token[token] = count
    return count


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs the 1st, (n+1)th, (2n+1)th ... call (counted as _count_token says)."""
    count = _next_count_at_call_site()
    log_if(level, msg, not (count % n), *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs only the first n calls (counted as _count_token says)."""
    count = _next_count_at_call_site()
    log_if(level, msg, count < n, *args)


def TaskLevelStatusMessage(msg: Any) -> None:
    error(msg)


def flush() -> None:
    """TF 1.15's tf.logging.flush raises NotImplementedError; so does this one."""
    raise NotImplementedError("tf.logging.flush is not implemented in TensorFlow 1.15 either")


def get_verbosity() -> int:
    return get_logger().getEffectiveLevel()


def set_verbosity(v: int | str) -> None:
    get_logger().setLevel(v)
