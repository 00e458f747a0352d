"""Programs that make tf.train.Server objects, for TF 1.15 (recorded by record_server_log.py) and
tfcluster (tests/unit/test_server_log.py): each is the body of a script after
`import <framework> as tf`, with PORTS a list of free ports; what it prints on stdout and the
lines of TF's C++ log on stderr about its servers (time stamps dropped, ports named) are
compared. Python 3.7 code."""

import re
import subprocess

try:
    from tf_reference.case_tools import free_ports
except ImportError:  # the recorder runs from this folder
    from case_tools import free_ports

CASES = {
    "local_server": """
server = tf.train.Server.create_local_server()
with tf.Session(server.target) as sess:
    print(sess.run(tf.constant(1) + 1))
""",
    "cluster_with_sparse_task_indices_started_later": """
cluster = tf.train.ClusterSpec({
    "worker": {1: "localhost:%d" % PORTS[0], 3: "localhost:%d" % PORTS[1]},
    "ps": ["localhost:%d" % PORTS[2]],
    "aa": ["localhost:%d" % PORTS[3]],
})
server = tf.train.Server(cluster, job_name="worker", task_index=3, start=False)
print("made")
server.start()
print("started")
""",
    "two_servers_of_one_job": """
cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % PORTS[0], "localhost:%d" % PORTS[1]]})
s0 = tf.train.Server(cluster, job_name="local", task_index=0)
s1 = tf.train.Server(cluster, job_name="local", task_index=1)
with tf.device("/job:local/task:1"):
    a = tf.constant(2.0)
with tf.Session(s0.target) as sess:
    print(sess.run(a * 3.0))
""",
    "quiet_with_tf_cpp_min_log_level": """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "1"
server = tf.train.Server.create_local_server()
print("quiet", server.target.startswith("grpc://localhost:"))
""",
}

_LOG_LINE = re.compile(r"^[0-9-]+ [0-9:.]+: (I tensorflow/core/distributed_runtime/.*)$")


def _named_ports(text, ports):
    for i, port in enumerate(ports):
        text = re.sub(rf"\b{port}\b", f"PORT{i}", text)
    return re.sub(r"localhost:\d+", "localhost:BOUND", text)


def server_log_lines(stderr):
    return [m.group(1) for m in map(_LOG_LINE.match, stderr.splitlines()) if m]


def run_case(python, module, name, env=None, cwd=None):
    ports = free_ports(4)
    script = f"import {module} as tf\nPORTS = {ports!r}\n{CASES[name]}"
    out = subprocess.run([python, "-c", script], capture_output=True, env=env, cwd=cwd, timeout=300)
    stderr = out.stderr.decode(errors="replace")
    if out.returncode:
        raise RuntimeError(stderr[-3000:])
    return {
        "stdout": _named_ports(out.stdout.decode(), ports),
        "stderr_log": [_named_ports(line, ports) for line in server_log_lines(stderr)],
    }
