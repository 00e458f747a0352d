"""Behaviours the TF1 chapter notebooks of a machine-learning book (deep networks, recurrent
networks, autoencoders) showed apart on tfcluster. Each case is `fn(tf) -> dict of plain
values`, run on TF 1.15 by record_handson_programs.py and on tfcluster by
tests/unit/test_handson_program_behaviours.py. Python 3.7 code."""

from __future__ import annotations

CASES = {}


def _case(fn):
    CASES[fn.__name__] = fn
    return fn


def _outcome(fn):
    """(error class, message) of fn(), or ("ok", what it gave)."""
    try:
        result = fn()
    except Exception as e:  # the class and TF's message are what is compared
        return [type(e).__name__, str(e)]
    return ["ok", result]


@_case
def reductions_over_all_axes_of_another_graphs_tensor(tf):
    """A cell whose import_meta_graph failed after reset_graph() leaves `logits` bound to the
    previous graph; reduce_mean(cast(correct)) then fails in TF 1.15: without an axis, a
    tensor of known rank gets its axes as a Const made in the default graph, which the Mean
    cannot take (the message names that Const). Of unknown rank, the axes come from Rank and
    Range in the tensor's own graph and the reduction succeeds there. Which names each graph
    then gives its next ops (the failed reductions used up Const names in the default graph,
    none in the tensor's)."""
    tf.reset_default_graph()
    old = tf.Graph()
    with old.as_default():
        known = tf.placeholder(tf.float32, [None], name="known")
        matrix = tf.placeholder(tf.float32, [None, 3], name="matrix")
        unknown = tf.placeholder(tf.float32, name="unknown")
        flags = tf.placeholder(tf.bool, [None], name="flags")

    def where(t):
        return [t.name, "old" if t.graph is old else "default"]

    out = {
        "mean_known_rank": _outcome(lambda: where(tf.reduce_mean(known))),
        "sum_matrix": _outcome(lambda: where(tf.reduce_sum(matrix))),
        "max_known_rank": _outcome(lambda: where(tf.reduce_max(known, name="biggest"))),
        "all_known_rank": _outcome(lambda: where(tf.reduce_all(flags))),
        "mean_unknown_rank": _outcome(lambda: where(tf.reduce_mean(unknown))),
        "mean_keepdims": _outcome(lambda: where(tf.reduce_mean(matrix, keepdims=True))),
        "mean_axis": _outcome(lambda: where(tf.reduce_mean(matrix, axis=1))),
        "mean_of_cast": _outcome(lambda: where(tf.reduce_mean(tf.cast(flags, tf.float32)))),
    }
    with old.as_default():
        out["next_in_old_graph"] = [tf.reduce_mean(known).name, tf.constant(1.0).name]
    out["next_in_default_graph"] = tf.constant(1.0).name
    out["default_graph_ops"] = [op.name for op in tf.get_default_graph().get_operations()]
    out["old_graph_ops"] = [op.name for op in old.get_operations()]
    return out
