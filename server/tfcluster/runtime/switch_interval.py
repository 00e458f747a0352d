"""Lets a task server's threads hand the GIL to one another within a fraction of a millisecond.

A step on a task server is a relay between threads: a stream's reader takes a request or a
tensor off a socket and wakes the executor, which wakes a writer, and a step of another
session (a second worker's, on a parameter server) runs beside it. A thread that is woken
while another one runs Python code waits for the GIL until that one blocks, or until
Python's switch interval has passed: 5 ms by default, longer than a whole word2vec step on
a parameter server. Under load every hand-off then costs up to that much, the step's
critical path grows, and the machine idles while threads wait for one another. TensorFlow's
C++ runtime has no such wait. 0.5 ms still left a parameter server's request for a worker's
ids waiting 0.5-1 ms for the worker's reader thread each word2vec step; 0.1 ms brings ours
near TensorFlow's (word2vec_ps A/B: 1.21x steps/s) and costs a few microseconds per forced
switch. A process that hosts a task server tunes itself once, and only ever lowers
the interval (a program that chose a smaller one keeps it).

TFCLUSTER_SWITCH_INTERVAL (settings/environment.py): seconds to use instead, or "off" to
keep Python's (or the program's) interval.
"""

from __future__ import annotations

import sys
import threading

from tfcluster.settings import environment

# Seconds: a fiftieth of Python's default.
SWITCH_INTERVAL = 0.0001

_lock = threading.Lock()
_tuned: float | None = None


def tune() -> float:
    """Lowers the switch interval to the task servers' (once per process); the interval now."""
    global _tuned
    with _lock:
        if _tuned is None:
            wanted = environment.switch_interval(SWITCH_INTERVAL)
            if wanted is not None and wanted < sys.getswitchinterval():
                sys.setswitchinterval(wanted)
            _tuned = sys.getswitchinterval()
        return _tuned
