"""What a training task prints, stdout and stderr in one stream as a cluster's pod log holds
them: the lines TF 1.15's Python and C++ logs and the program itself write, in their order.

Each program runs as a script file of its own with TF's C++ log on (TF_CPP_MIN_LOG_LEVEL
unset) and Python's warnings off; the kept lines are the program's own prints (marked "> "),
log_device_placement's stdout lines, the tensorflow logger's INFO lines, and TF's C++ log
lines from the source files a case watches (as "I <file>:<line>] <text>", no timestamp).
Written once for TF 1.15 (record_task_output.py) and tfcluster (tests/unit/test_task_output.py);
kept runnable on Python 3.7."""

import os
import re
import subprocess
import tempfile

PROGRAMS = {
    # SyncReplicasOptimizer logs its aggregation when made (and nothing when it builds ops).
    "sync_replicas_logs_its_aggregation": (
        (),
        """
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.INFO)
w = tf.Variable(1.0)
step = tf.train.get_or_create_global_step()
opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                     replicas_to_aggregate=3, total_num_replicas=2)
train = opt.minimize(tf.square(w), global_step=step)
tf.train.SyncReplicasOptimizer(tf.train.AdamOptimizer(), replicas_to_aggregate=1)
print("> built")
""",
    ),
    # log_device_placement: each node's stdout line, then its log line.
    "placement_lines_one_node_at_a_time": (
        ("placer.cc",),
        """
import sys
import tensorflow as tf
a = tf.constant(1.0, name="a")
b = tf.constant(2.0, name="b")
c = tf.add(a, b, name="c")
d = tf.multiply(c, 3.0, name="d")
with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as s:
    print(">", s.run(d))
    sys.stdout.flush()
""",
    ),
    # A traced step starts a profiler session: a local session's for HARDWARE_TRACE and
    # FULL_TRACE, a task's master's for FULL_TRACE only, once per step however many tasks
    # run it.
    "traced_steps_start_a_profiler_session": (
        ("profiler_session.cc",),
        """
import socket
import sys
import tensorflow as tf
def port():
    s = socket.socket(); s.bind(("localhost", 0)); p = s.getsockname()[1]; s.close(); return p
cluster = tf.train.ClusterSpec({"worker": ["localhost:%d" % port()],
                                "ps": ["localhost:%d" % port()]})
worker = tf.train.Server(cluster, "worker", 0)
ps = tf.train.Server(cluster, "ps", 0)
levels = [tf.RunOptions.FULL_TRACE, tf.RunOptions.SOFTWARE_TRACE,
          tf.RunOptions.HARDWARE_TRACE, tf.RunOptions.NO_TRACE, tf.RunOptions.FULL_TRACE]
def steps(target, c):
    with tf.Session(target) as sess:
        for level in levels:
            print("> run", level, sess.run(c, options=tf.RunOptions(trace_level=level),
                                           run_metadata=tf.RunMetadata()))
            sys.stdout.flush()
        print("> untraced", sess.run(c))
        sys.stdout.flush()
with tf.Graph().as_default():
    steps("", tf.add(tf.constant(1.0), 2.0))
with tf.Graph().as_default():
    with tf.device("/job:ps/task:0"):
        a = tf.constant(1.0) * 3.0
    with tf.device("/job:worker/task:0"):
        steps(worker.target, tf.add(a, 2.0))
""",
    ),
    # A daemon thread (a queue runner's, a supervisor's service) blocked in a step on the
    # process's own server when the main thread returns: the process ends with it blocked.
    "daemon_thread_blocked_at_exit": (
        (),
        """
import sys
import threading
import time
import tensorflow as tf
server = tf.train.Server.create_local_server()
q = tf.FIFOQueue(2, tf.float32, shapes=[])
dequeue = q.dequeue()
sess = tf.Session(server.target)
def body():
    try:
        sess.run(dequeue)
        print("> dequeued")
    except Exception as e:
        print("> the daemon thread's step raised", type(e).__name__)
    sys.stdout.flush()
thread = threading.Thread(target=body)
thread.daemon = True
thread.start()
time.sleep(1.0)
print("> main returns")
sys.stdout.flush()
""",
    ),
    # A variable named "global_step" outside the GLOBAL_STEP collection: get_global_step
    # finds its reference tensor, and the hooks' read of it adds no initialized_value.
    "global_step_found_by_its_name": (
        (),
        """
import sys
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.INFO)
step = tf.Variable(0, name="global_step", trainable=False)
w = tf.Variable(2.0)
found = tf.train.get_global_step()
print(">", type(found).__name__, found.name, found.dtype)
train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=found)
before = len(tf.get_default_graph().get_operations())
with tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
    while not sess.should_stop():
        print(">", sess.run([train, found])[1])
print(">", [op.name for op in tf.get_default_graph().get_operations()[before:]][:3])
sys.stdout.flush()
""",
    ),
    # A session's first step waits for every task of the cluster, its master logging those
    # that have not answered every 10 seconds (here the second worker starts after 11).
    "master_logs_the_tasks_it_waits_for": (
        ("master.cc",),
        """
import socket
import sys
import threading
import time
import tensorflow as tf
def port():
    s = socket.socket(); s.bind(("localhost", 0)); p = s.getsockname()[1]; s.close(); return p
cluster = tf.train.ClusterSpec({"worker": ["localhost:%d" % port(), "localhost:%d" % port()]})
server = tf.train.Server(cluster, "worker", 0)
late = []
def start_late():
    time.sleep(11.0)
    late.append(tf.train.Server(cluster, "worker", 1))
threading.Thread(target=start_late, daemon=True).start()
with tf.device("/job:worker/task:0"):
    c = tf.constant(1.0) + 1.0
sess = tf.Session(server.target)
print(">", sess.run(c))
sys.stdout.flush()
""",
    ),
    # SavedModelBuilder given the export directory as bytes (os.path.join of as_bytes parts).
    "saved_model_builder_with_a_bytes_directory": (
        (),
        """
import os
import sys
import tempfile
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.INFO)
where = tempfile.mkdtemp()
os.chdir(where)
export = os.path.join(tf.compat.as_bytes("models"), tf.compat.as_bytes("1"))
x = tf.placeholder(tf.float32, [None, 2], name="x")
w = tf.Variable(tf.ones([2, 1]))
y = tf.matmul(x, w, name="y")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    builder = tf.saved_model.builder.SavedModelBuilder(export)
    builder.add_meta_graph_and_variables(sess, ["serve"])
    path = builder.save()
print(">", type(path).__name__, path)
for root, dirs, files in sorted(os.walk("models")):
    print(">", root, sorted(files))
try:
    tf.saved_model.builder.SavedModelBuilder(export)
except AssertionError as e:
    print(">", type(e).__name__, e)
sys.stdout.flush()
""",
    ),
    # train_and_evaluate run locally at DEBUG verbosity: the evaluation of the last
    # checkpoint is the final export.
    "train_and_evaluate_final_export_at_debug_verbosity": (
        ("only logged:", "loss = ", "Saving dict", "Calling exporter", "Loss for final step"),
        """
import sys
import tempfile
import numpy as np
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.DEBUG)
def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
x = np.arange(16, dtype=np.float32).reshape(8, 2)
y = np.array([0, 1] * 4, dtype=np.int32)
est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(),
                             config=tf.estimator.RunConfig(tf_random_seed=1))
train = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=None,
                                           shuffle=False)
test = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=1,
                                          shuffle=False)
tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train, max_steps=3),
                                tf.estimator.EvalSpec(test))
print("> done")
sys.stdout.flush()
""",
    ),
    # TF's own logging module, imported by path (SageMaker's script-mode examples do): its
    # get_logger, which tf.logging does not export, is the "tensorflow" logger.
    "tf_logging_module_by_path": (
        (),
        """
import logging
import sys
import tensorflow as tf
from tensorflow.python.platform import tf_logging
logger = tf_logging.get_logger()
print(">", logger.name, logger is tf.get_logger(), logger is logging.getLogger("tensor" + "flow"))
print(">", hasattr(tf.logging, "get_logger"), tf_logging.INFO, tf_logging.get_verbosity())
tf_logging.set_verbosity(tf_logging.INFO)
logger.handlers = [logging.StreamHandler(sys.stdout)]
tf_logging.info("> logged %d", 1)
sys.stdout.flush()
""",
    ),
    # A local session's config may carry device_filters (an Estimator's distributed
    # session_config does): a local session has this process's devices and ignores them.
    "local_session_ignores_device_filters": (
        (),
        """
import sys
import tensorflow as tf
c = tf.constant(1.0) + 1.0
with tf.Session(config=tf.ConfigProto(device_filters=["/job:ps", "/job:master"])) as s:
    print(">", s.run(c))
sys.stdout.flush()
""",
    ),
    # train_and_evaluate as the `master` task of TF_CONFIG's cluster (its ps served by the
    # same process): RunConfig logs TF_CONFIG, the task starts its server, trains, and
    # evaluates after its checkpoints (its evaluation's local session ignoring the config's
    # device_filters).
    "train_and_evaluate_as_the_master_task": (
        (
            "only logged:",
            "TF_CONFIG environment variable",
            "Start Tensorflow server",
            "Skip starting Tensorflow server",
            "loss = ",
            "Saving dict",
            "Calling exporter",
            "Loss for final step",
        ),
        """
import json
import os
import socket
import sys
import tempfile
import numpy as np
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.DEBUG)
def port():
    s = socket.socket(); s.bind(("localhost", 0)); p = s.getsockname()[1]; s.close(); return p
cluster = {"master": ["localhost:%d" % port()], "ps": ["localhost:%d" % port()]}
os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster,
                                      "task": {"type": "master", "index": 0},
                                      "environment": "cloud"})
ps = tf.train.Server(tf.train.ClusterSpec(cluster), "ps", 0)
def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
x = np.arange(16, dtype=np.float32).reshape(8, 2)
y = np.array([0, 1] * 4, dtype=np.int32)
config = tf.estimator.RunConfig(tf_random_seed=1)
print(">", config.task_type, config.is_chief, list(config.session_config.device_filters))
est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
train = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=None,
                                           shuffle=False)
test = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=1,
                                          shuffle=False)
print(">", tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(train, max_steps=3),
                                           tf.estimator.EvalSpec(test)))
evaluated = os.listdir(os.path.join(est.model_dir, "eval")) != []
print(">", sorted(os.listdir(est.model_dir))[:2], evaluated)
sys.stdout.flush()
""",
    ),
    # model_to_estimator given a compiled Keras model says which model it uses.
    "model_to_estimator_with_a_keras_model": (
        ("only logged:", "Using the Keras model", "Loading models", "Using default config"),
        """
import sys
import tempfile
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.INFO)
model = tf.keras.Sequential()
model.add(tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)))
model.add(tf.keras.layers.Dense(1, activation="sigmoid"))
model.compile(loss="binary_crossentropy", optimizer=tf.train.GradientDescentOptimizer(0.2))
est = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=tempfile.mkdtemp())
print(">", type(est).__name__)
sys.stdout.flush()
""",
    ),
}

_PLACEMENT = re.compile(r"^\S+: \(\w+\): /job:")
_CPP_LOG = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ([IWEF]) (\S+)\] (.*)$")


_PORT = re.compile(r"localhost:\d+")


def _kept(output, sources):
    """The lines to compare; `sources` names C++ source files whose log lines count and,
    after an "only logged:" item, the starts of the only Python log messages that count."""
    files = sources[: sources.index("only logged:")] if "only logged:" in sources else sources
    messages = sources[len(files) + 1 :]
    lines = []
    for line in output.splitlines():
        line = _PORT.sub("localhost:<port>", line)
        m = _CPP_LOG.match(line)
        if m:
            where = m.group(2).rsplit("/", 1)[-1]
            if any(where.startswith(s) for s in files):
                lines.append(f"{m.group(1)} {where}] {m.group(3)}")
        elif line.startswith(("INFO:tensorflow:", "DEBUG:tensorflow:")):
            message = line.split(":", 2)[2]
            if message.startswith(messages) if messages else line.startswith("INFO"):
                lines.append(line)
        elif line.startswith("> ") or _PLACEMENT.match(line):
            lines.append(line)
    return lines


def run_program(python, module, name, env=None):
    """The kept lines of program `name` run as `python prog.py` (tensorflow -> module)."""
    sources, body = PROGRAMS[name]
    # Unbuffered, as recorded (and as a pod's log shows a task): stdout and stderr interleave
    # line by line as the program prints them.
    env = dict(os.environ if env is None else env, PYTHONWARNINGS="ignore", PYTHONUNBUFFERED="1")
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    with tempfile.TemporaryDirectory() as where:
        with open(os.path.join(where, "prog.py"), "w") as f:
            f.write(body.replace("tensorflow", module))
        out = subprocess.run(
            [python, "prog.py"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=where,
            timeout=300,
        )
    output = out.stdout.decode(errors="replace")
    if out.returncode:
        raise RuntimeError(output[-3000:])
    return _kept(output, sources)
