"""What a tfcluster process takes from its environment: the library reads it only in
settings/environment.py (the commands in cli/ read their own and pass values), and each
switch there reads the variable it is documented to read."""

from __future__ import annotations

import re
from pathlib import Path

import tfcluster
from tfcluster.settings import contract, environment

PACKAGE = Path(tfcluster.__file__).parent
# The edges that may read the process environment: the commands, this one module, and the
# example program (a user's program, as seed 003 writes it).
READERS = {"cli", "examples", "settings/environment.py"}
ENVIRONMENT_USE = re.compile(r"os\.environ|os\.getenv|os\.putenv|os\.unsetenv")


def test_only_the_edges_read_or_write_the_environment() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("protos/") or any(rel == r or rel.startswith(r + "/") for r in READERS):
            continue
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if ENVIRONMENT_USE.search(line):
                found.append(f"{rel}:{lineno}: {line.strip()}")
    assert found == []


def test_switches_are_on_unless_set_to_zero() -> None:
    assert environment.direct_streams_enabled({})
    assert environment.direct_streams_enabled({"TFCLUSTER_DIRECT": "1"})
    assert not environment.direct_streams_enabled({"TFCLUSTER_DIRECT": "0"})
    assert environment.shm_enabled({})
    assert not environment.shm_enabled({"TFCLUSTER_SHM": "0"})


def test_malloc_tuning_defers_to_whoever_chose_already() -> None:
    assert environment.malloc_tuning_wanted({})
    assert not environment.malloc_tuning_wanted({"TFCLUSTER_MALLOC_TUNING": "0"})
    assert not environment.malloc_tuning_wanted({"MALLOC_MMAP_THRESHOLD_": "131072"})
    assert not environment.malloc_tuning_wanted({"MALLOC_TRIM_THRESHOLD_": "0"})


def test_a_programs_server_ports_come_from_the_contract_variables() -> None:
    env = {contract.METRICS_PORT_ENV: " 9100 ", contract.DIRECT_PORT_ENV: "2300"}
    assert environment.program_metrics_port(env) == "9100"
    assert environment.program_direct_port(env) == "2300"
    assert environment.program_metrics_port({}) == ""
    assert environment.program_direct_port({}) is None
