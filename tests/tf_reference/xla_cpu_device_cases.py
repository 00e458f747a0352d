"""Programs that list a process's devices or ask for the XLA_CPU device by name, run by TF 1.15
(in record_xla_cpu_device.py) and tfcluster (tests/unit/test_xla_cpu_device.py).

TF 1.15's pip wheels give every task an XLA_CPU device beside its CPU: device_lib,
Session.list_devices, tf.config and the placer's "available devices" list it; a node goes
there only when its device names it, and only if XLA has a kernel for its op and dtypes
(otherwise TF's placement error, or the CPU under soft placement). Each case returns plain
JSON data. Python 3.7 code, only the given `tf` is used.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

_XLA = "/device:XLA_CPU:0"


def _error(e: Exception) -> list[Any]:
    """[class, first line, the placer's per-type lines, its colocation members]."""
    text = str(getattr(e, "message", e))
    lines = text.split("\n")
    types = sorted(line for line in lines if re.match(r"^\w+: (CPU|XLA_CPU)( \w+)* $", line))
    members = [line.strip() for line in lines if line.startswith("  ") and "(" in line]
    first = re.sub(r" \(defined at [^)]*\) ", " ", lines[0])
    return [type(e).__name__, first, types, members]


def _outcome(tf: Any, make: Callable[[], Any], **config: Any) -> Any:
    tf.reset_default_graph()
    fetch = make()
    try:
        with tf.Session(config=tf.ConfigProto(**config)) as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(fetch)
        return ["ok", _plain(value)]
    except Exception as e:
        return _error(e)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, bytes):
        return value.decode()
    return value


def local_devices(tf: Any) -> Any:
    root = "tfcluster" if tf.__name__.startswith("tfcluster") else "tensorflow"
    device_lib = importlib.import_module(root + ".python.client.device_lib")
    devices = device_lib.list_local_devices()
    text = str(devices)
    return {
        "fields": [
            [d.name, d.device_type, d.memory_limit, d.HasField("locality"), d.physical_device_desc]
            for d in devices
        ],
        "printed": re.sub(r"incarnation: \d+", "incarnation: N", text),
        "incarnations_nonzero": all(d.incarnation != 0 for d in devices),
    }


def session_devices(tf: Any) -> Any:
    tf.reset_default_graph()
    with tf.Session() as sess:
        return [[d.name, d.device_type, d.memory_limit_bytes] for d in sess.list_devices()]


def config_devices(tf: Any) -> Any:
    conf = tf.config.experimental
    return {
        "physical": [list(d) for d in conf.list_physical_devices()],
        "physical_xla": [list(d) for d in conf.list_physical_devices("XLA_CPU")],
        "visible": [list(d) for d in conf.get_visible_devices()],
        "logical": [list(d) for d in conf.list_logical_devices()],
        "logical_cpu": [list(d) for d in conf.list_logical_devices("CPU")],
        "listed": tf.config.experimental_list_devices(),
    }


def _matmul() -> Any:
    import numpy as np

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    return a


def matmul_on_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            a = tf.constant(_matmul())
            return tf.matmul(a, a, transpose_b=True)

    return _outcome(tf, make)


def int_ops_on_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            x = tf.constant([1, 2, 3])
            return [x * 3, tf.reduce_sum(x), tf.cumsum(x)]

    return _outcome(tf, make)


def control_flow_on_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            c = tf.constant(1.5)
            branch = tf.cond(c > 1.0, lambda: c * 2.0, lambda: c - 1.0)
            loop = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), [0, 0])
            return [branch, loop[1], tf.no_op()]

    return _outcome(tf, make)


def placeholder_on_xla_cpu_fed(tf: Any) -> Any:
    tf.reset_default_graph()
    with tf.device(_XLA):
        p = tf.placeholder(tf.float32, [2])
        y = tf.square(p) + 1.0
    with tf.Session() as sess:
        return _plain(sess.run(y, {p: [1.0, 3.0]}))


def resource_variable_on_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            v = tf.get_variable(
                "rv", [3], use_resource=True, initializer=tf.constant_initializer([1.0, 2, 3])
            )
            return v * 2.0

    return _outcome(tf, make)


def training_step_on_xla_cpu(tf: Any) -> Any:
    """A resource variable trained on XLA_CPU, its loss computed there too."""
    tf.reset_default_graph()
    with tf.device(_XLA):
        w = tf.get_variable(
            "w", [2], use_resource=True, initializer=tf.constant_initializer([0.5, -1.0])
        )
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        loss = tf.reduce_mean(tf.square(tf.reshape(tf.matmul(x, tf.reshape(w, [2, 1])), [-1])))
        step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(3):
            losses.append(float(sess.run(loss)))
            sess.run(step)
        return [round(v, 5) for v in losses] + [_plain(sess.run(w))]


def ref_variable_on_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            v = tf.Variable(1.0, name="v")
            return v + 1.0

    return _outcome(tf, make)


def ref_variable_on_xla_cpu_soft(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            v = tf.Variable(1.0, name="v")
            return v + 1.0

    return _outcome(tf, make, allow_soft_placement=True)


def string_op_on_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            return tf.strings.join(["a", "b"])

    return _outcome(tf, make)


def string_op_on_xla_cpu_soft(tf: Any) -> Any:
    def make() -> Any:
        with tf.device(_XLA):
            return tf.strings.join(["a", "b"])

    return _outcome(tf, make, allow_soft_placement=True)


def string_const_on_xla_cpu(tf: Any) -> Any:
    """A dtype XLA's kernel for the op does not take (Const of strings)."""

    def make() -> Any:
        with tf.device(_XLA):
            return tf.constant("s", name="s")

    return _outcome(tf, make)


def second_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device("/device:XLA_CPU:1"):
            return tf.multiply(tf.constant(2.0, name="two"), 3.0, name="m")

    return _outcome(tf, make)


def second_xla_cpu_soft(tf: Any) -> Any:
    def make() -> Any:
        with tf.device("/device:XLA_CPU:1"):
            return tf.multiply(tf.constant(2.0, name="two"), 3.0, name="m")

    return _outcome(tf, make, allow_soft_placement=True)


def missing_gpu_lists_xla_cpu(tf: Any) -> Any:
    def make() -> Any:
        with tf.device("/device:GPU:0"):
            return tf.multiply(tf.constant(2.0, name="two"), 3.0, name="m")

    return _outcome(tf, make)


def server_devices(tf: Any) -> Any:
    """A tf.train.Server's task has the XLA_CPU device too; a node placed there by job, task
    and type runs on it."""
    tf.reset_default_graph()
    server = tf.train.Server.create_local_server()
    with tf.device("/job:local/task:0" + _XLA):
        y = tf.constant([1.0, 2.0]) * 4.0
    with tf.Session(server.target) as sess:
        devices = [[d.name, d.device_type, d.memory_limit_bytes] for d in sess.list_devices()]
        return {"devices": devices, "value": _plain(sess.run(y))}


def keras_multi_gpu_model_on_a_cpu_host(tf: Any) -> Any:
    """Keras checks the devices it would replicate onto against the session's (named as
    Keras names them, XLA_CPU among them)."""
    tf.reset_default_graph()
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    out = []
    for gpus in (2, [0, 1], 1):
        try:
            tf.keras.utils.multi_gpu_model(model, gpus=gpus)
            out.append("ok")
        except Exception as e:
            out.append([type(e).__name__, str(e)])
    return out


CASES = {
    name: fn
    for name, fn in sorted(globals().items())
    if callable(fn)
    and not name.startswith("_")
    and fn.__module__ == __name__
    and name not in ("run_all",)
}


def run_all(tf: Any) -> dict[str, Any]:
    return {name: fn(tf) for name, fn in sorted(CASES.items())}
