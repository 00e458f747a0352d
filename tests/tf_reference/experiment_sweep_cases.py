"""Behaviours small public TF1 experiment scripts (gradients, queues, sessions, input
pipelines) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_experiment_sweep.py and on tfcluster by
tests/unit/test_experiment_sweep.py. Python 3.7 code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


@case
def gradient_through_print_in_a_cond_branch(tf):
    """tf.Print inside a tf.cond branch passes its input's gradient through (a switch that
    turns backprop on and off per value: y = t + stop_gradient(x - t) with t the printed x
    or zeros); also a Print of a Print, a Print with data, and a tf.case branch."""
    x = tf.constant([1.5, -2.0], name="x")
    s = tf.placeholder(tf.float32, [2], name="switches")
    parts = []
    for k in range(2):
        xk = x[k] * x[k]
        t = tf.cond(
            tf.cast(s[k], tf.bool),
            lambda xk=xk: tf.Print(xk, [0], "backprop enabled "),
            lambda xk=xk: tf.zeros_like(xk),
        )
        parts.append(t + tf.stop_gradient(xk - t))
    z = tf.reduce_sum(tf.stack(parts))
    nested = tf.cond(
        s[0] > 0,
        lambda: tf.Print(tf.Print(x * 3.0, [x], "inner "), [x, s], "outer ") * x,
        lambda: x * 0.5,
    )
    in_case = tf.case(
        [(s[1] > 0, lambda: tf.Print(tf.exp(x), [x], "case "))], default=lambda: tf.sin(x)
    )
    grads = {
        "z": tf.gradients(z, x)[0],
        "nested": tf.gradients(nested, x)[0],
        "case": tf.gradients(in_case, x)[0],
    }
    out = {}
    with tf.Session() as sess:
        for switches in ([1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]):
            got = sess.run({"value": z, "grads": grads}, {s: switches})
            tag = "".join(str(int(v)) for v in switches)
            out["value_" + tag] = float(got["value"])
            for name, g in sorted(got["grads"].items()):
                out[name + "_" + tag] = g.tolist()
    return out


@case
def queue_runner_thread_names(tf):
    """The threads start_queue_runners starts are named after the queue and its enqueue op
    (and one per runner that closes the queue on stop); an uncaught error in one shows the
    name in Python's "Exception in thread ..." line."""
    ranges = tf.train.range_input_producer(limit=10, num_epochs=1, shuffle=False)
    number = ranges.dequeue()
    tf.train.batch_join([[number]] * 2, batch_size=2)
    q = tf.FIFOQueue(4, [tf.int32], name="plain")
    runner = tf.train.QueueRunner(q, [q.enqueue([1]), q.enqueue([2])])
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        names = [t.name for t in threads]
        no_coord = runner.create_threads(sess, daemon=True)
        plain = [t.name for t in no_coord]
        coord.request_stop()
        coord.join(threads)
    return {"with_coordinator": names, "without_coordinator": plain}


@case
def gradient_through_print_nested_in_a_cond(tf):
    """A tf.Print inside a cond or a while_loop that is itself inside a cond branch: the
    gradient passes through the Print at every depth (TF differentiates its Switch/Merge
    form); a py_func's output in a branch gets none."""
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    nested = tf.cond(
        p,
        lambda: tf.cond(p, lambda: tf.Print(x * x, [x], "inner "), lambda: x),
        lambda: x * 3.0,
    )

    def body(i, a):
        return i + 1, tf.Print(a * x, [i], "step ")

    looped = tf.cond(
        p,
        lambda: tf.while_loop(lambda i, a: i < 2, body, [0, tf.ones_like(x)])[1],
        lambda: x,
    )
    py = tf.cond(p, lambda: tf.py_func(lambda v: v * 2, [x], tf.float32) + x, lambda: x)
    fetches = {
        "nested": nested,
        "looped": looped,
        "d_nested": tf.gradients(nested, x)[0],
        "d_looped": tf.gradients(looped, x)[0],
        "d_py": tf.gradients(py, x)[0],
    }
    out = {}
    with tf.Session() as sess:
        for flag in (True, False):
            got = sess.run(fetches, {p: flag})
            for name, value in sorted(got.items()):
                out[name + "_" + str(flag)] = value.tolist()
    return out


def _closed_queue_name(tf, sess, queue):
    """The queue's resource name, as the error of a dequeue from it once closed gives it."""
    sess.run(queue.close())
    try:
        sess.run(queue.dequeue())
    except tf.errors.OutOfRangeError as e:
        return e.message.split("'")[1]
    return None


def _relative(names):
    """`_<id>_<node>` names with ids counted from the first one's."""
    parts = [name[1:].split("_", 1) for name in names]
    first = int(parts[0][0])
    return ["_%d_%s" % (int(i) - first, rest) for i, rest in parts]  # noqa: UP031


@case
def private_queue_names_across_sessions(tf):
    """A queue without a shared_name is named `_<id>_<node name>` with the id from one counter
    for the whole process: it keeps counting across sessions and graphs (and readers,
    which are resources of the same kind, take numbers from it too)."""
    names = []
    for _ in range(2):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(3, [tf.int32], name="first")
            shuffle = tf.RandomShuffleQueue(3, 0, [tf.int32], name="shuffled")
            reader = tf.TextLineReader(name="lines")
            with tf.Session() as sess:
                sess.run(reader.num_records_produced())
                names.append(_closed_queue_name(tf, sess, shuffle))
                names.append(_closed_queue_name(tf, sess, q))
            with tf.Session() as sess:
                names.append(_closed_queue_name(tf, sess, q))
    return {"names": _relative(names)}


def _timed_out(tf, sess, fetch, **kwargs):
    try:
        sess.run(fetch, **kwargs)
    except tf.errors.DeadlineExceededError as e:
        return {"class": type(e).__name__, "message": e.message, "op_is_none": e.op is None}
    return None


@case
def step_timeouts_name_no_node(tf):
    """A step that runs past operation_timeout_in_ms (or RunOptions.timeout_in_ms) while an
    op blocks (a dequeue from an empty queue, a reader waiting for a file name) fails with
    the session's DeadlineExceededError naming no node: "Timed out waiting for notification"
    in a local session, "Operation timed out." in a server's; the session runs on."""
    q = tf.FIFOQueue(3, [tf.int32], name="q")
    x = q.dequeue(name="deq")
    files = tf.FIFOQueue(3, [tf.string], name="files")
    _, line = tf.TextLineReader(name="lines").read(files)
    out = {}
    server = tf.train.Server.create_local_server()
    for kind, target in (("local", ""), ("server", server.target)):
        config = tf.ConfigProto(operation_timeout_in_ms=300)
        with tf.Session(target, config=config) as sess:
            out[kind + "_config"] = _timed_out(tf, sess, x)
            options = tf.RunOptions(timeout_in_ms=200)
            out[kind + "_options"] = _timed_out(tf, sess, x, options=options)
            out[kind + "_reader"] = _timed_out(tf, sess, line)
            sess.run(q.enqueue(7))
            out[kind + "_after"] = int(sess.run(x))
    return out


_SUMMARY_READS = """import json, os
import %s as tf
path = os.path.join(os.getcwd(), "events")
writer = tf.summary.FileWriter(path)
writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=0.5)]), 3)
writer.close()
(name,) = os.listdir(path)
events = tf.train.summary_iterator(os.path.join(path, name))
steps = [(e.step, [v.tag for v in e.summary.value]) for e in events]
records = len(list(tf.python_io.tf_record_iterator(os.path.join(path, name))))
print(json.dumps({"steps": steps, "records": records}))
"""

_FROM = re.compile(r"^WARNING:tensorflow:From (.*?):\d+: ")


def _tf_record_warnings(stderr):
    """The warning records naming tf_record_iterator: [whose (the program's or a library
    file's), the record as printed without its From part]."""
    records = []
    for line in stderr.splitlines():
        if line.startswith("WARNING:"):
            records.append([line])
        elif records and line.strip():
            records[-1].append(line)
    out = []
    for lines in records:
        text = "\n".join(lines)
        match = _FROM.match(text)
        if match is None or "tf_record_iterator" not in text:
            continue
        whose = "program" if match.group(1) == "<string>" else "library"
        out.append([whose, text[match.end() :]])
    return out


def _module_name(tf):
    """The name a program imports `tf` by (TF 1.15's module calls itself tensorflow_core...)."""
    return "tfcluster" if tf.__name__.startswith("tfcluster") else "tensorflow"


@case
def summary_iterator_announces_tf_record_iterator(tf):
    """tf.train.summary_iterator (which an early-stopping hook and BestExporter use to read
    the evaluation events) reads the file with the deprecated tf_record_iterator: its first
    read prints that function's deprecation warning, and the program's own later call of
    tf.python_io.tf_record_iterator prints none. Run as a program of its own (a warning is
    printed once per process)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
    paths = env.get("PYTHONPATH", "").split(os.pathsep)  # made absolute: cwd changes
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in paths if p)
    # Not under /tmp: TF 1.15's reference install lives there and will not import from it.
    with tempfile.TemporaryDirectory(dir=os.path.expanduser("~")) as tmp:
        done = subprocess.run(
            [sys.executable, "-c", _SUMMARY_READS % _module_name(tf)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
            cwd=tmp,
        )
    return {
        "rc": done.returncode,
        "stdout": json.loads(done.stdout) if done.returncode == 0 else done.stderr[-2000:],
        "warnings": _tf_record_warnings(done.stderr),
    }


@case
def resource_variable_ops_module(tf):
    """`from tensorflow.python.ops import resource_variable_ops`: its ResourceVariable is a
    tf.Variable that is_resource_variable tells from a reference variable, and its op
    wrappers (var_handle_op, assign_variable_op, assign_add_variable_op, read_variable_op,
    resource_gather, var_is_initialized_op, variable_shape) take TF's positional
    arguments."""
    import importlib

    rvo = importlib.import_module(_module_name(tf) + ".python.ops.resource_variable_ops")
    v = rvo.ResourceVariable([[1.0, 2.0], [3.0, 4.0]], name="rv")
    ref = tf.Variable(1.0, name="ref")
    handle = rvo.var_handle_op(tf.float32, [3], shared_name="h")
    init = rvo.var_is_initialized_op(handle)
    assign = rvo.assign_variable_op(handle, tf.constant([1.0, 2.0, 3.0]))
    with tf.control_dependencies([assign]):
        add = rvo.assign_add_variable_op(handle, tf.constant([10.0, 10.0, 10.0]))
    with tf.control_dependencies([add]):
        read = rvo.read_variable_op(handle, tf.float32)
    gathered = rvo.resource_gather(v.handle, [1, 0], tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = bool(sess.run(init))
        out = {
            "read": sess.run(read).tolist(),
            "initialized_before": before,
            "initialized_after": bool(sess.run(init)),
            "gathered": sess.run(gathered).tolist(),
            "shape": sess.run(rvo.variable_shape(v.handle)).tolist(),
            "value": sess.run(v).tolist(),
        }
    out["is_variable"] = isinstance(v, tf.Variable)
    out["is_resource"] = [rvo.is_resource_variable(v), rvo.is_resource_variable(ref)]
    out["names"] = [v.name, read.op.type, gathered.op.type]
    return out
