"""gRPC's core says nothing on stderr in a TF1 program (TensorFlow's own gRPC prints no
transport events; the server's own start lines are TF's): `import tfcluster` sets
GRPC_VERBOSITY=ERROR before grpc is imported, unless the user set it, whose setting wins.
GRPC_TRACE=api makes gRPC log every API call at INFO, which shows whether the level reached
gRPC's core."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_PROGRAM = """
import tfcluster as tf
server = tf.train.Server.create_local_server()
with tf.Session(server.target) as sess:
    print(sess.run(tf.constant(1) + 1))
"""


def _run(verbosity: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
    env["GRPC_TRACE"] = "api"
    if verbosity is not None:
        env["GRPC_VERBOSITY"] = verbosity
    return subprocess.run(
        [sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_program_with_a_server_and_a_session_prints_no_grpc_log_lines() -> None:
    done = _run(None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
    assert "grpc_init" not in done.stderr
    # Only TF's own lines about the server (tests/unit/test_server_log.py) are there.
    assert all(
        " I tensorflow/core/distributed_runtime/rpc/" in line
        for line in done.stderr.strip().splitlines()
    ), done.stderr


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
def test_the_users_grpc_verbosity_wins(level: str) -> None:
    done = _run(level)
    assert done.returncode == 0, done.stderr
    assert "grpc_init" in done.stderr
