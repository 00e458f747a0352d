"""Lines in the form of TensorFlow's C++ log on stderr ("2026-01-01 12:00:00.000000: I
tensorflow/core/...:54] text"), for the events TF 1.15 logs there that programs' users read
(a server's start, log_device_placement's lines). As TF's, they honour TF_CPP_MIN_LOG_LEVEL
(1 and above: no INFO lines)."""

from __future__ import annotations

import sys
import time

from tfcluster.settings import environment


def info(where: str, text: str) -> None:
    """One INFO line (or several, `text` ending in a newline each) from TF's source file
    `where` ("tensorflow/core/common_runtime/placer.cc:54")."""
    _write("I", 1, where, text)


def warning(where: str, text: str) -> None:
    """One WARNING line, as `info` (TF_CPP_MIN_LOG_LEVEL 2 and above: none)."""
    _write("W", 2, where, text)


def _write(severity: str, hidden_from: int, where: str, text: str) -> None:
    if environment.tf_cpp_min_log_level() >= hidden_from:
        return
    now = time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
    micros = int((now % 1) * 1_000_000)
    sys.stderr.write(f"{stamp}.{micros:06d}: {severity} {where}] {text}")
    sys.stderr.flush()
