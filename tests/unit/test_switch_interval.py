"""runtime/switch_interval.py: a process that hosts a task server hands the GIL from a busy
thread to a woken one within a fraction of a millisecond, not Python's 5 ms."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tfcluster.runtime import switch_interval
from tfcluster.settings import environment

# Starts a task server, then times hand-offs: this thread runs Python code and sets an event
# another thread waits on; that thread notes when it got the GIL back.
_PROGRAM = """
import json, statistics, sys, threading, time
set_before = float(sys.argv[1])
if set_before:
    sys.setswitchinterval(set_before)
import tfcluster as tf
server = tf.train.Server.create_local_server()
woken = threading.Event()
got = []
def waiter():
    for _ in range(40):
        woken.wait()
        got.append(time.perf_counter())
        woken.clear()
t = threading.Thread(target=waiter, daemon=True)
t.start()
delays = []
for _ in range(40):
    time.sleep(0.002)  # the waiter is back in wait()
    n = len(got)
    start = time.perf_counter()
    woken.set()
    while len(got) == n:  # busy in Python, as an executor dispatching kernels
        pass
    delays.append(got[-1] - start)
server.stop()
print(json.dumps({"interval": sys.getswitchinterval(),
                  "handoff_ms": 1e3 * statistics.median(delays)}))
"""


def _run(env: dict[str, str], set_before: float = 0.0) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _PROGRAM, str(set_before)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_task_server_hands_the_gil_over_within_a_millisecond() -> None:
    tuned = _run({})
    # Python keeps the interval in whole microseconds.
    assert tuned["interval"] == pytest.approx(switch_interval.SWITCH_INTERVAL)
    # Python's default makes the woken thread wait about 5 ms for the busy one.
    assert tuned["handoff_ms"] < 2.5, tuned


def test_off_keeps_pythons_interval() -> None:
    kept = _run({environment.SWITCH_INTERVAL_ENV: "off"})
    assert kept["interval"] == pytest.approx(0.005)
    assert kept["handoff_ms"] > 2.5, kept  # what the tuning saves


def test_a_smaller_interval_the_program_chose_is_kept() -> None:
    assert _run({}, set_before=0.00005)["interval"] == pytest.approx(0.00005)


def test_the_interval_can_be_given_in_seconds() -> None:
    assert environment.switch_interval(0.0005, {"TFCLUSTER_SWITCH_INTERVAL": "0.002"}) == 0.002
    assert environment.switch_interval(0.0005, {}) == 0.0005
    assert environment.switch_interval(0.0005, {"TFCLUSTER_SWITCH_INTERVAL": "OFF"}) is None


@pytest.mark.parametrize("raw", ["fast", "0", "-1"])
def test_a_bad_interval_says_what_is_expected(raw: str) -> None:
    with pytest.raises(ValueError, match=r"TFCLUSTER_SWITCH_INTERVAL.*positive number"):
        environment.switch_interval(0.0005, {"TFCLUSTER_SWITCH_INTERVAL": raw})
