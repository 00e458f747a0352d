"""Runs that fail on a task of an in-process two-task cluster, for TF 1.15 (recorded by
record_remote_errors.py) and tfcluster (tests/unit/test_remote_error_messages.py): the error's
class and the first two lines of its message (node lines aside), which a grpc session's
master starts with the name of the task whose partition failed
("From /job:worker/replica:0/task:1:"). Python 3.7 code."""

try:
    from tf_reference.case_tools import free_ports
except ImportError:  # the recorder runs from this folder
    from case_tools import free_ports


def _error_head(tf, fn):
    try:
        fn()
    except tf.errors.OpError as e:
        # The "[[node ...]]" lines name where ops were made: TF 1.15 points into its own files.
        lines = [line for line in e.message.split("\n") if not line.startswith("\t [[")]
        return [type(e).__name__, *lines[:2]]
    return ["no error", ""]


def run_cases(tf):
    """{case name: [error class, first two lines of the message]}."""
    ports = free_ports(2)
    cluster = tf.train.ClusterSpec(
        {"worker": [f"localhost:{ports[0]}"], "ps": [f"localhost:{ports[1]}"]}
    )
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    tf.train.Server(cluster, job_name="ps", task_index=0)
    out = {}
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            on_ps = tf.Variable(1.0, name="on_ps")
            x = tf.placeholder(tf.float32, name="x")
            checked_on_ps = tf.check_numerics(x, "bad value on ps")
        with tf.device("/job:worker/task:0"):
            y = tf.placeholder(tf.float32, name="y")
            checked_on_worker = tf.check_numerics(y, "bad value on worker")
            two_tasks = checked_on_worker + on_ps
        no_device = tf.check_numerics(y, "bad value without a device")
        with tf.Session(worker.target) as sess:
            nan = float("nan")
            out["uninitialized_variable_on_ps"] = _error_head(tf, lambda: sess.run(on_ps))
            out["op_on_ps"] = _error_head(tf, lambda: sess.run(checked_on_ps, {x: nan}))
            out["op_on_the_session_task"] = _error_head(
                tf, lambda: sess.run(checked_on_worker, {y: nan})
            )
            out["op_without_a_device"] = _error_head(tf, lambda: sess.run(no_device, {y: nan}))
            out["step_over_two_tasks"] = _error_head(tf, lambda: sess.run(two_tasks, {y: 1.0}))
            sess.run(on_ps.initializer)
            out["step_over_two_tasks_failing_on_worker"] = _error_head(
                tf, lambda: sess.run(two_tasks, {y: nan})
            )
            out["after_the_errors"] = ["value", repr(sess.run(two_tasks, {y: 2.0}))]
    with tf.Graph().as_default():
        z = tf.placeholder(tf.float32)
        local = tf.check_numerics(z, "bad value in a local session")
        with tf.Session() as sess:
            out["local_session"] = _error_head(tf, lambda: sess.run(local, {z: float("nan")}))
    return out
