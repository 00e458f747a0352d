"""WorkerHeartbeat: a serialized WorkerHeartbeatRequest configures the task's watchdog, the op
answers a WorkerHeartbeatResponse (TF 1.15's CPU build has no kernel for it: its messages
are those of TF's event.proto, which session_support.py sends)."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import pytest
import tfcluster as tf
from tfcluster.protos import worker_heartbeat_pb2 as hb


def _beat(request: hb.WorkerHeartbeatRequest) -> hb.WorkerHeartbeatResponse:
    with tf.Graph().as_default():
        out = tf.raw_ops.WorkerHeartbeat(request=request.SerializeToString())
        assert out.dtype == tf.string and out.shape == []
        with tf.Session() as sess:
            return hb.WorkerHeartbeatResponse.FromString(sess.run(out))


def test_heartbeat_answers_healthy_with_hostname() -> None:
    response = _beat(hb.WorkerHeartbeatRequest())
    assert response.health_status == hb.OK
    assert response.hostname == socket.gethostname()


def test_unparsable_request_is_invalid_argument() -> None:
    with tf.Graph().as_default():
        out = tf.raw_ops.WorkerHeartbeat(request=b"\xff\xff\xff")
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out)


def test_disarmed_watchdog_keeps_the_task_running() -> None:
    armed = hb.WorkerHeartbeatRequest(
        watchdog_config=hb.WatchdogConfig(timeout_ms=60_000),
        shutdown_mode=hb.WAIT_FOR_COORDINATOR,
    )
    assert _beat(armed).health_status == hb.OK
    stop = hb.WorkerHeartbeatRequest(
        watchdog_config=hb.WatchdogConfig(timeout_ms=-1), shutdown_mode=hb.NOT_CONFIGURED
    )
    assert _beat(stop).health_status == hb.OK


def test_watchdog_without_heartbeats_ends_the_task() -> None:
    program = textwrap.dedent(
        """
        import time
        import tfcluster as tf
        from tfcluster.protos import worker_heartbeat_pb2 as hb
        req = hb.WorkerHeartbeatRequest(watchdog_config=hb.WatchdogConfig(timeout_ms=300))
        with tf.Session() as sess:
            sess.run(tf.raw_ops.WorkerHeartbeat(request=req.SerializeToString()))
        time.sleep(30)
        print("still running")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "still running" not in done.stdout
    assert "no heartbeat" in done.stderr
