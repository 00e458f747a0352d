"""What a queue-fed TF1 program sees when an input thread fails, as TF 1.15 shows it: the
Coordinator logs the first real error it is given before any stop request ("INFO:tensorflow:
Error reported to Coordinator: <class '...'>, message", or with the traceback for an exc_info
tuple), keeps it for join(), and keeps none given after a stop request; a callable made
without a feed_list (a QueueRunner's enqueue) raises the runtime's bare message
("[[{{node X}}]]"), while one made with a feed_list, as Session.run, names the node's
definition; a QueueRunner logs an error it raises ("Exception in QueueRunner: ...") and says
nothing of the errors it ignores (TF's vlog(1)) when closing or cancelling its queue. Each
program runs as a script file of its own; its stdout and those log lines (the error class's
module left out) are compared. Written once for TF 1.15
(record_queue_runner_errors.py) and tfcluster (tests/unit/test_queue_runner_errors.py); kept
runnable on Python 3.7."""

import re

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference import deprecated_name_cases
except ImportError:
    import deprecated_name_cases

PROGRAMS = {
    "coordinator_reports_the_first_error": """
import sys, threading
import tensorflow as tf
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
coord = tf.train.Coordinator()
def work():
    try:
        raise tf.errors.InvalidArgumentError(None, None, "bad record")
    except Exception as e:
        coord.request_stop(e)
t = threading.Thread(target=work)
t.start()
t.join()
try:
    raise ValueError("second")
except ValueError as e:
    coord.request_stop(e)
try:
    coord.join([])
except tf.errors.InvalidArgumentError as e:
    print("join raised", type(e).__name__, e)
coord.clear_stop()
try:
    raise KeyError("k")
except KeyError:
    coord.request_stop(sys.exc_info())
try:
    coord.join([])
except KeyError as e:
    print("join raised", type(e).__name__, e)
coord.clear_stop()
coord.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
coord.join([])
print("clean stop joined", coord.should_stop())
coord.clear_stop()
coord.request_stop()
try:
    raise ValueError("after a stop request")
except ValueError as e:
    coord.request_stop(e)
coord.join([])
print("nothing kept after a stop request")
""",
    "failing_enqueue_thread": """
import tensorflow as tf
tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
q = tf.FIFOQueue(10, tf.float32)
bad = tf.check_numerics(tf.constant(float("nan")), "bad value")
x = tf.placeholder(tf.float32)
checked = tf.check_numerics(x, "fed value")
qr = tf.train.QueueRunner(q, [q.enqueue(bad)])
def first_lines(e):
    text = str(e)
    return [text.split("\\n")[0], text.split("\\n")[1].strip()[:8],
            "Original stack trace" in text]
with tf.Session() as sess:
    try:
        sess.make_callable(bad)()
    except tf.errors.InvalidArgumentError as e:
        print("callable", first_lines(e))
    try:
        sess.make_callable(checked, [x])(float("nan"))
    except tf.errors.InvalidArgumentError as e:
        print("callable fed", first_lines(e))
    try:
        sess.make_callable(checked, [x], accept_options=True)(float("inf"))
    except tf.errors.InvalidArgumentError as e:
        print("callable fed, options", first_lines(e))
    try:
        sess.run(bad)
    except tf.errors.InvalidArgumentError as e:
        print("run", first_lines(e))
    coord = tf.train.Coordinator()
    threads = qr.create_threads(sess, coord=coord, start=True)
    try:
        coord.join(threads)
    except tf.errors.InvalidArgumentError as e:
        print("join", type(e).__name__, repr(str(e)))
""",
    "queue_runner_logs": """
import logging
import tensorflow as tf
logging.basicConfig(level=logging.DEBUG, format="%(levelname)s:%(name)s:%(message)s")
q = tf.FIFOQueue(2, tf.float32)
qr = tf.train.QueueRunner(q, [q.enqueue(1.0)])
bad_q = tf.FIFOQueue(2, tf.float32)
failing = tf.check_numerics(tf.constant(float("nan")), "bad value")
bad = tf.train.QueueRunner(bad_q, [bad_q.enqueue(failing)])
with tf.Session() as sess:
    sess.run(q.close())
    for t in qr.create_threads(sess, start=True):
        t.join()
    print("closed queue's runner done", qr.exceptions_raised)
    coord = tf.train.Coordinator()
    coord.request_stop()
    for t in qr.create_threads(sess, coord=coord, start=True):
        t.join()
    for t in bad.create_threads(sess, daemon=True, start=True):
        t.join()
    print([type(e).__name__ for e in bad.exceptions_raised])
""",
}

_ERROR_CLASS = re.compile(r"<class '[\w.]*\.(\w+)'>")


def coordinator_lines(stderr, where):
    """The Coordinator's "Error reported" log lines, and the last line of the traceback it
    logs with an exc_info tuple; an error class named without its module; and what a
    QueueRunner logs ("Exception in QueueRunner", "Ignored exception")."""
    out = []
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if "Exception in QueueRunner" in line or "Ignored exception" in line:
            out.append(line)
        if line.startswith("INFO:tensorflow:Error reported to Coordinator"):
            out.append(_ERROR_CLASS.sub(r"<class '\1'>", line))
            if i + 1 < len(lines) and lines[i + 1].startswith("Traceback"):
                j = i + 1
                while j + 1 < len(lines) and lines[j + 1].startswith(" "):
                    j += 1
                if j + 1 < len(lines):
                    out.append(lines[j + 1])
    return out


def run_program(python, module, name, env=None):
    return deprecated_name_cases.run_program(
        python, PROGRAMS[name].replace("tensorflow", module), coordinator_lines, env
    )
