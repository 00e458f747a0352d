"""runtime/allocator.py: a process with a session reuses freed tensor memory instead of
faulting in fresh pages for every big tensor, every step."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_PROGRAM = """
import json, resource, sys
import numpy as np
import tfcluster as tf
tf.Session()  # a session tunes the process
from tfcluster.runtime import allocator
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(3):
    np.ones(1 << 20, np.float32)  # warm-up: 4 MiB
before = faults()
for _ in range(50):
    a = np.ones(1 << 20, np.float32)
    b = a * 2.0
    del a, b
print(json.dumps({"tuned": allocator.tune(), "faults": faults() - before}))
"""


def _run(env: dict[str, str]) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", _PROGRAM],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_big_tensors_reuse_memory_once_tuned() -> None:
    default = _run({"TFCLUSTER_MALLOC_TUNING": "0"})
    tuned = _run({})
    assert not default["tuned"] and tuned["tuned"]
    # 100 arrays of 4 MiB (1,024 pages each): tens of thousands of page faults when each
    # one is mapped afresh; a handful when the memory is reused. (glibc's own dynamic mmap
    # threshold may start reusing after the first dozen or so: more than ten mapped afresh.)
    assert default["faults"] > 10_000, default
    assert tuned["faults"] < 2_000, tuned


def test_an_explicit_glibc_setting_is_left_alone() -> None:
    assert not _run({"MALLOC_TRIM_THRESHOLD_": "131072"})["tuned"]
