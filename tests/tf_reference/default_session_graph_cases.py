"""Which graph is the default while a session is the default one, as TF 1.15 has it:
`sess.as_default()` makes the session the default session only (ops built inside still go to
the default graph), `with sess:` enters its graph too and cannot be re-entered, and an
InteractiveSession enters its graph only when one was passed to it, so a notebook may call
tf.reset_default_graph() after opening one; opening one while another is open warns. Each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_default_session_graph.py
and on tfcluster by tests/unit/test_default_session_graph.py. Python 3.7 code."""

from __future__ import annotations

try:
    from tf_reference.case_tools import error, registrar
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error, registrar

CASES = {}
case = registrar(CASES, own_graph=True)
# Cases that must run with no graph entered (they reset the default graph themselves).
unnested = registrar(CASES)


@case
def as_default_leaves_the_default_graph(tf):
    """Ops built under another graph's session's as_default() go to the default graph."""
    g = tf.Graph()
    sess = tf.Session(graph=g)
    try:
        with sess.as_default():
            c = tf.constant(1.0)
            inside = {
                "op_in_session_graph": c.graph is g,
                "default_graph_is_session_graph": tf.get_default_graph() is g,
                "default_session_is_session": tf.get_default_session() is sess,
            }
        return {"inside": inside, "after": tf.get_default_session() is None}
    finally:
        sess.close()


@case
def with_session_enters_its_graph(tf):
    """`with sess:` makes its graph the default one; entering it again is a RuntimeError."""
    g = tf.Graph()
    sess = tf.Session(graph=g)
    with sess:
        in_graph = tf.constant(1.0).graph is g
        again = error(lambda: sess.__enter__())
    return {
        "op_in_session_graph": in_graph,
        "reenter": again,
        "after_default_graph_is_session_graph": tf.get_default_graph() is g,
    }


@unnested
def reset_default_graph_after_interactive_session(tf):
    """An InteractiveSession opened on the default graph leaves it unnested: a later
    tf.reset_default_graph() works, and the session stays the default session (of the old
    graph: a tensor of the new one cannot be evaluated by it)."""
    tf.reset_default_graph()
    before = tf.get_default_graph()
    sess = tf.InteractiveSession()
    try:
        first = tf.constant(2.0)
        value = float(first.eval())
        reset = error(tf.reset_default_graph)
        fresh = tf.constant(3.0)
        return {
            "value": value,
            "session_graph_was_default": sess.graph is before,
            "reset": reset,
            "new_default_graph": tf.get_default_graph() is not before,
            "default_session_is_session": tf.get_default_session() is sess,
            "eval_new_graph": error(fresh.eval),
            "explicit_session": float(tf.Session().run(fresh)),
        }
    finally:
        sess.close()


@unnested
def interactive_session_with_a_graph(tf):
    """An InteractiveSession given a graph makes it the default graph until closed, so
    tf.reset_default_graph() refuses (nested graphs) while it is open."""
    tf.reset_default_graph()
    g = tf.Graph()
    sess = tf.InteractiveSession(graph=g)
    open_default = tf.get_default_graph() is g
    reset_while_open = error(tf.reset_default_graph)
    value = float(tf.constant(4.0).eval())
    sess.close()
    return {
        "open_default": open_default,
        "reset_while_open": reset_while_open,
        "value": value,
        "closed_default": tf.get_default_graph() is g,
        "closed_default_session": tf.get_default_session() is None,
    }


@unnested
def interactive_session_opened_beside_another_warns(tf):
    """A second InteractiveSession opened while one is open warns (UserWarning), also after
    a third was opened and closed between; the warnings of each opening, as class and
    message."""
    import warnings

    tf.reset_default_graph()
    steps = {}
    first = tf.InteractiveSession()
    try:
        for name in ("second", "third"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sess = tf.InteractiveSession()
            sess.close()
            steps[name] = [[w.category.__name__, str(w.message)] for w in caught]
    finally:
        first.close()
    return steps
