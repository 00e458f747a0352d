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
    if environment.tf_cpp_min_log_level() >= 1:
        return
    now = time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
    micros = int((now % 1) * 1_000_000)
    sys.stderr.write(f"{stamp}.{micros:06d}: I {where}] {text}")
    sys.stderr.flush()
