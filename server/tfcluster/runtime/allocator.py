"""Keeps freed tensor memory in the process instead of handing it back to the OS at once.

glibc serves an allocation of more than 128 KiB (most tensors) with a fresh mmap, returns
it with munmap when it is freed, and trims the heap's top: a step that allocates and frees
the same tensors every time then pays a page fault for every 4 KiB of them, every step. In
parameter-server training here that was a sixth of the machine's time and it starved one
worker. Raising the mmap and trim thresholds keeps that memory for reuse, as TensorFlow's
own allocators do. A process that hosts a task server or a session tunes itself once.

TFCLUSTER_MALLOC_TUNING=0 keeps glibc's defaults; so does any MALLOC_MMAP_THRESHOLD_ or
MALLOC_TRIM_THRESHOLD_ in the environment (someone chose already; settings/environment.py
reads them). Other C libraries: no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading

from tfcluster.settings import environment

# mallopt parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# glibc's largest mmap threshold on 64-bit systems; bigger tensors still get their own mmap.
MMAP_THRESHOLD = 32 << 20
# Free memory at the top of a heap is given back to the OS beyond this much.
TRIM_THRESHOLD = 256 << 20

_lock = threading.Lock()
_tuned: bool | None = None


def tune() -> bool:
    """Raises glibc's thresholds (once per process); whether they are raised."""
    global _tuned
    if _tuned is not None:
        return _tuned
    with _lock:
        if _tuned is None:
            _tuned = environment.malloc_tuning_wanted() and _mallopt()
        return _tuned


def _mallopt() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # not glibc (musl has no mallopt)
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
