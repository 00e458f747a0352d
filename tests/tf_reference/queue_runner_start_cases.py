"""What tf.train.start_queue_runners says and raises: TF 1.15 logs "`tf.train.start_queue_runners()`
was called when no queue runners were defined. ..." when the default graph has none, raises
without a default session, refuses what is not a session and gives a MonitoredSession nothing.
Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_queue_runner_starts.py and on tfcluster by tests/unit/test_queue_runner_starts.py.
Python 3.7 code."""

from __future__ import annotations

try:
    from tf_reference.case_tools import LoggedWarnings, error
except ImportError:  # run from tests/tf_reference by the recorder
    from case_tools import LoggedWarnings, error


def _warnings_of(fn):
    with LoggedWarnings() as handler:
        result = fn()
    # (deprecation warnings, "From <file>:<line>: ... is deprecated ...", left out)
    return result, [m for m in handler.messages if not m.startswith("From ")]


def starting_without_queue_runners_warns(tf):
    """No queue runners in the default graph: a warning, no threads; with one: no warning."""
    out = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        threads, said = _warnings_of(lambda: tf.train.start_queue_runners(sess=sess))
        out["empty"] = {"threads": len(threads), "warnings": said}
        q = tf.FIFOQueue(4, tf.float32)
        qr = tf.train.QueueRunner(q, [q.enqueue(1.0)])
        tf.train.add_queue_runner(qr)
        coord = tf.train.Coordinator()
        threads, said = _warnings_of(
            lambda: tf.train.start_queue_runners(sess=sess, coord=coord, start=False)
        )
        out["one_runner"] = {"threads": len(threads), "warnings": said}
    return out


def the_default_graph_is_the_one_looked_at(tf):
    """A session of another graph that has a queue runner, started while a graph without
    one is the default: TF warns (it looks at the default graph), then starts the session's
    graph's runners."""
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(4, tf.float32)
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1.0)]))
    with tf.Graph().as_default(), tf.Session(graph=g) as sess:
        coord = tf.train.Coordinator()
        threads, said = _warnings_of(
            lambda: tf.train.start_queue_runners(sess=sess, coord=coord, start=False)
        )
    return {"threads": len(threads), "warnings": said}


def what_is_not_a_session(tf):
    """No default session, an int for a session, and a MonitoredSession (nothing to start)."""
    out = {}
    with tf.Graph().as_default():
        out["no_session"] = error(lambda: tf.train.start_queue_runners())
        out["an_int"] = error(lambda: tf.train.start_queue_runners(sess=3))
        tf.train.get_or_create_global_step()
        with tf.train.MonitoredSession() as mon:
            got, said = _warnings_of(lambda: tf.train.start_queue_runners(sess=mon))
            out["monitored"] = {"threads": len(got), "warnings": said}
    return out


CASES = {
    "starting_without_queue_runners_warns": starting_without_queue_runners_warns,
    "the_default_graph_is_the_one_looked_at": the_default_graph_is_the_one_looked_at,
    "what_is_not_a_session": what_is_not_a_session,
}
