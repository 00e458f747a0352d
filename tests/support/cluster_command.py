"""`tfcluster cluster` (task servers only, until Ctrl-C) started as a child process, its
output read up to the line saying it is up ('Ctrl-C stops it')."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any


def start_cluster_command(
    logdir: Path, ps: int = 1, workers: int = 1, **popen: Any
) -> tuple[subprocess.Popen[str], list[str]]:
    """The running command and the lines it printed before it was up (that line included);
    `popen` goes to subprocess.Popen (env, preexec_fn). The caller stops it (SIGINT)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tfcluster.cli.tfcluster_main",
            "cluster",
            f"--ps={ps}",
            f"--workers={workers}",
            f"--logdir={logdir}",
        ],
        stdout=subprocess.PIPE,
        text=True,
        **popen,
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "Ctrl-C stops it" in line:
            return proc, lines
    proc.kill()
    proc.wait()
    raise AssertionError("tfcluster cluster ended before it was up:\n" + "".join(lines))
