"""Programs whose graph holds a node no device of the session can take, run by TF 1.15 (in
record_whole_graph_placement.py) and tfcluster (tests/unit/test_whole_graph_placement.py).

TF's sessions place the session's whole graph each time it grows, not only what a step needs,
so such a node fails every step, needed or not; an InteractiveSession places only what each
step needs; soft placement relaxes a node's device type and index, never its job, replica or
task. Each case returns a line: `ok <values>` or `<error class>: <node> on <device>` (the node
the error names and the device it asked for). Python 3.7 code, only the given `tf` is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_ASSIGN = re.compile(r"Cannot assign a device for operation ([^:]+):.* assigned to (\S+) but")


def _outcome(tf: Any, make: Callable[[], Any]) -> str:
    tf.reset_default_graph()
    try:
        return "ok " + repr(make())
    except Exception as e:
        found = _ASSIGN.search(str(getattr(e, "message", e)))
        where = f"{found.group(1)} on {found.group(2)}" if found else "?"
        return f"{type(e).__name__}: {where}"


def _unused_node_then_run(tf: Any, device: str, soft: bool, interactive: bool = False) -> Any:
    with tf.device(device):
        tf.truncated_normal([2], name="far")
    a = tf.add(tf.constant(1.0), 1.0, name="near")
    config = tf.ConfigProto(allow_soft_placement=soft)
    sess = tf.InteractiveSession(config=config) if interactive else tf.Session(config=config)
    try:
        return float(sess.run(a))
    finally:
        sess.close()


def _node_on(tf: Any, device: str, soft: bool) -> Any:
    with tf.device(device):
        m = tf.multiply(tf.constant(2.0), 3.0, name="m")
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=soft)) as sess:
        return float(sess.run(m))


def _graph_grows_with_an_unplaceable_node(tf: Any) -> Any:
    a = tf.add(tf.constant(1.0), 1.0, name="near")
    out = []
    with tf.Session() as sess:
        out.append(float(sess.run(a)))
        with tf.device("/job:ps/task:0"):
            tf.Variable(1.0, name="far")
        for _ in range(2):
            try:
                out.append(float(sess.run(a)))
            except tf.errors.InvalidArgumentError as e:
                out.append(type(e).__name__)
    return out


def _interactive_session_runs_what_it_can(tf: Any) -> Any:
    with tf.device("/job:ps/task:0"):
        far = tf.multiply(tf.constant(2.0), 3.0, name="far")
    a = tf.add(tf.constant(1.0), 1.0, name="near")
    sess = tf.InteractiveSession()
    try:
        first = float(a.eval())
        try:
            far.eval()
            second = "ran"
        except tf.errors.InvalidArgumentError as e:
            second = type(e).__name__
        return [first, second]
    finally:
        sess.close()


def _local_cpu_names(tf: Any) -> Any:
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        v = tf.multiply(tf.constant(2.0), 3.0)
    with tf.device("/cpu:0"):
        w = v + 1
    with tf.device("/job:localhost"):
        u = w + 1
    with tf.Session() as sess:
        return float(sess.run(u))


def _make_callable_of_a_placeable_fetch(tf: Any) -> Any:
    with tf.device("/job:ps/task:0"):
        tf.constant(1.0, name="far")
    a = tf.add(tf.constant(1.0), 1.0, name="near")
    with tf.Session() as sess:
        return float(sess.make_callable(a)())


def _server_session_with_a_node_of_a_missing_job(tf: Any) -> Any:
    server = tf.train.Server.create_local_server()
    with tf.device("/job:ps/task:0"):
        tf.Variable(1.0, name="far")
    a = tf.add(tf.constant(1.0), 1.0, name="near")
    with tf.Session(server.target) as sess:
        return float(sess.run(a))


def cases() -> dict[str, Callable[[Any], Any]]:
    out: dict[str, Callable[[Any], Any]] = {
        "graph_grows_with_an_unplaceable_node": _graph_grows_with_an_unplaceable_node,
        "interactive_session_runs_what_it_can": _interactive_session_runs_what_it_can,
        "local_cpu_names": _local_cpu_names,
        "make_callable_of_a_placeable_fetch": _make_callable_of_a_placeable_fetch,
        "server_session_with_a_node_of_a_missing_job": (
            _server_session_with_a_node_of_a_missing_job
        ),
    }
    devices = {
        "gpu": "/device:GPU:0",
        "localhost_gpu": "/job:localhost/device:GPU:0",
        "ps_gpu": "/job:ps/device:GPU:0",
        "ps": "/job:ps/task:0",
        "other_task": "/job:localhost/task:1",
        "other_replica": "/job:localhost/replica:1",
        "second_cpu": "/device:CPU:1",
        "worker_cpu": "/job:worker/task:0/device:CPU:0",
        "tpu": "/device:TPU:0",
    }
    for key, device in devices.items():
        for soft in (False, True):
            suffix = "_soft" if soft else ""
            out[f"unused_{key}{suffix}"] = lambda tf, d=device, s=soft: _unused_node_then_run(
                tf, d, s
            )
            out[f"fetched_{key}{suffix}"] = lambda tf, d=device, s=soft: _node_on(tf, d, s)
    out["unused_ps_interactive"] = lambda tf: _unused_node_then_run(tf, "/job:ps", False, True)
    return out


def run_all(tf: Any) -> dict[str, str]:
    return {name: _outcome(tf, lambda m=make: m(tf)) for name, make in sorted(cases().items())}
