"""Programs run with ConfigProto(log_device_placement=True), for TF 1.15 (recorded by
record_placement_log.py) and tfcluster (tests/unit/test_placement_log.py): each is the body
of a script after `import <framework> as tf`, and what it prints on stdout is compared.
Python 3.7 code. A "grpc" case has a server program (serving until its stdin closes, with
PORT its port) and a client program; both their stdouts are recorded."""

import os
import re
import socket
import subprocess
import sys

CASES = {
    "constant_add": """
print("before")
s = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print("after", s.run(tf.constant(1.0) + 2.0))
s2 = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print("end")
""",
    "variables_init_train": """
import numpy as np
x = tf.placeholder(tf.float32, [None, 2], name="x")
w = tf.Variable(tf.zeros([2, 1]), name="w")
loss = tf.reduce_sum(tf.square(tf.matmul(x, w)), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
init = tf.global_variables_initializer()
print("made")
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print("session")
sess.run(init)
print("initialised")
for _ in range(2):
    sess.run(train, {x: np.ones([1, 2], np.float32)})
    print("step")
print(sess.run(w).tolist())
""",
    "a_node_that_cannot_be_placed": """
a = tf.constant([[1.0, 2.0]], name="a")
m = tf.matmul(a, a, transpose_b=True, name="m")
n = tf.matmul(m, m, name="n")
with tf.device("/device:GPU:2"):
    g = tf.matmul(a, a, transpose_b=True, name="g")
late = tf.identity(n, name="late")
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
try:
    sess.run(g)
except tf.errors.InvalidArgumentError as e:
    print("failed", type(e).__name__)
""",
    "graph_grows_between_runs": """
a = tf.placeholder(tf.float32, [], name="a")
b = tf.identity(a, name="b")
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print("R1", sess.run(b, {a: 1.0}))
c = tf.add(b, 1.0, name="c")
print("R2", sess.run(c, {a: 1.0}))
print("R3", sess.run(c, {a: 2.0}))
sess2 = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print("S2", sess2.run(b, {a: 3.0}))
""",
    "stateful_nodes_keep_their_place_as_the_graph_grows": """
q = tf.FIFOQueue(10, tf.float32, name="q")
v = tf.Variable(2.0, name="v")
enq = q.enqueue([v * 3.0], name="enq")
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
sess.run(v.initializer)
sess.run(enq)
print("R1")
size = q.size(name="size")
print("R2", sess.run(size))
noise = tf.random_uniform([2], seed=1, name="noise")
print("R3", sess.run(size))
""",
    "a_node_on_xla_cpu": """
with tf.device("/device:XLA_CPU:0"):
    a = tf.constant([1.0, 2.0], name="a")
    y = tf.multiply(a, 2.0, name="y")
z = tf.add(y, 1.0, name="z")
sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
print(sess.run(z).tolist())
""",
    "explicit_cpu_device": """
with tf.device("/cpu:0"):
    k = tf.constant([1.0, 2.0], name="k")
    v = tf.Variable(k, name="v")
with tf.device("/device:CPU:0"):
    total = tf.reduce_sum(v, name="total")
with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
    sess.run(v.initializer)
    print(sess.run(total))
""",
    "debugging_set_log_device_placement": """
tf.debugging.set_log_device_placement(True)
s = tf.Session()
print(s.run(tf.constant(1.0, name="one")))
""",
    "resources_and_soft_placement": """
v = tf.get_variable("rv", initializer=tf.constant([1.0, 2.0]), use_resource=True)
with tf.device("/gpu:0"):
    d = tf.multiply(v, 2.0, name="d")
q = tf.FIFOQueue(3, tf.float32, name="q")
enq = q.enqueue([1.0], name="enq")
deq = q.dequeue(name="deq")
config = tf.ConfigProto(log_device_placement=True, allow_soft_placement=True)
with tf.Session(config=config) as sess:
    sess.run(v.initializer)
    print(sess.run(d).tolist())
    sess.run(enq)
    print(sess.run(deq))
""",
    "pruned_graph_placed_per_step": """
import numpy as np
x = tf.placeholder(tf.float32, [None, 2], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
w = tf.Variable(tf.ones([2, 1]), name="w")
pred = tf.matmul(x, w, name="pred")
loss = tf.reduce_mean(tf.square(pred - y), name="loss")
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
unused = tf.add(w, 3.0, name="unused")
sess = tf.InteractiveSession(config=tf.ConfigProto(log_device_placement=True))
print("session")
sess.run(tf.global_variables_initializer())
print("initialised")
for _ in range(2):
    print(sess.run([train, loss], {x: np.ones([1, 2], np.float32), y: [[1.0]]})[1])
print("evaluated", sess.run(loss, {x: np.ones([1, 2], np.float32), y: [[0.5]]}))
print("pred", sess.run(pred, {x: np.ones([1, 2], np.float32)}).tolist())
grown = tf.multiply(pred, 2.0, name="grown")
print("grown", sess.run(grown, {x: np.ones([1, 2], np.float32)}).tolist())
print("fed w", sess.run(pred, {x: np.ones([1, 2], np.float32), w: [[1.0], [2.0]]}).tolist())
sess.close()
config = tf.ConfigProto(log_device_placement=True)
config.graph_options.place_pruned_graph = True
with tf.Session(config=config) as s2:
    print("unused", s2.run(unused, {w: [[0.0], [1.0]]}).tolist())
    s2.run(w.initializer)
    print("value", s2.run(w).tolist())
""",
    "option_off": """
s = tf.Session(config=tf.ConfigProto(log_device_placement=False))
print(s.run(tf.constant(1.0) + 2.0))
""",
}

GRPC_CASES = {
    "grpc_session": (
        """
import sys
server = tf.train.Server(tf.train.ClusterSpec({"worker": ["localhost:%d" % PORT]}), "worker", 0)
print("SERVER UP")
sys.stdout.flush()
sys.stdin.read()
""",
        """
a = tf.constant(1.0, name="a")
b = tf.identity(a, name="b")
config = tf.ConfigProto(log_device_placement=True)
with tf.Session("grpc://localhost:%d" % PORT, config=config) as sess:
    print("R1", sess.run(b))
    c = tf.add(b, 1.0, name="c")
    print("R2", sess.run(c))
""",
    ),
    "grpc_pruned_graph_per_step": (
        """
import sys
server = tf.train.Server(tf.train.ClusterSpec({"worker": ["localhost:%d" % PORT]}), "worker", 0)
print("SERVER UP")
sys.stdout.flush()
sys.stdin.read()
""",
        """
x = tf.placeholder(tf.float32, [2], name="x")
p = tf.placeholder(tf.float32, [2], name="p")
z = tf.identity(x * 2.0, name="z")
config = tf.ConfigProto(log_device_placement=True)
config.graph_options.place_pruned_graph = True
with tf.Session("grpc://localhost:%d" % PORT, config=config) as sess:
    print("R1", sess.run([z, x + 1.0], {x: [1.0, 2.0], p: [0.0, 0.0]}))
    print("R2", sess.run(z, {x: [1.0, 2.0]}))
""",
    ),
}


# TF's C++ log lines about placement, without their time stamps, and the device lines that
# continue a "Device mapping:" log line.
_LOG_LINE = re.compile(r"^[0-9-]+ [0-9:.]+: (I tensorflow/core/common_runtime/.*)$")


def placement_log_lines(stderr):
    kept = []
    for line in stderr.splitlines():
        m = _LOG_LINE.match(line)
        if m:
            kept.append(m.group(1))
        elif line.startswith("/job:"):
            kept.append(line)
    return kept


def _script(module, body, port=None):
    head = f"import {module} as tf\n"
    if port is not None:
        head += f"PORT = {port}\n"
    return head + body


def _run_script(python, script, env, cwd):
    """A finished `python -c script`; its stderr's tail raised when it failed."""
    out = subprocess.run([python, "-c", script], capture_output=True, env=env, cwd=cwd, timeout=300)
    if out.returncode:
        raise RuntimeError(out.stderr.decode(errors="replace")[-3000:])
    return out


def run_case(python, module, name, env=None, cwd=None):
    """The case's stdout(s) as the framework prints them: {"stdout": ...} or, for a grpc
    case, {"client": ..., "server": ...}."""
    if name in CASES:
        out = _run_script(python, _script(module, CASES[name]), env, cwd)
        return {
            "stdout": out.stdout.decode(),
            "stderr_log": placement_log_lines(out.stderr.decode(errors="replace")),
        }
    server_body, client_body = GRPC_CASES[name]
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [python, "-c", _script(module, server_body, port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    try:
        first = server.stdout.readline().decode()
        client = _run_script(python, _script(module, client_body, port), env, cwd)
        rest, _ = server.communicate(b"", timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return {"client": client.stdout.decode(), "server": first + rest.decode()}


def all_names():
    return sorted(CASES) + sorted(GRPC_CASES)


if __name__ == "__main__":  # python placement_log_cases.py MODULE NAME: print a case's output
    print(run_case(sys.executable, sys.argv[1], sys.argv[2], env=dict(os.environ)))
