"""Where the ops a session helper uses to find uninitialized variables are placed
(tf.report_uninitialized_variables, which Supervisor, SessionManager and Scaffold build), and
what tf.assert_variables_initialized builds and raises: each
case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_uninitialized_report.py and
on tfcluster by tests/unit/test_uninitialized_report.py. Python 3.7 code."""

from __future__ import annotations

import os

try:
    from tf_reference.case_tools import registrar
except ImportError:  # run as a recorder, from tests/tf_reference
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _report_ops(tf, scope):
    g = tf.get_default_graph()
    return [
        [op.name, op.type, op.device, [t.name for t in op.inputs]]
        for op in g.get_operations()
        if op.name.startswith(scope + "/")
    ]


@case
def report_ops_run_on_the_cpu_after_the_flags(tf):
    """The IsVariableInitialized flags keep no device; the stack, names and boolean mask
    after them are placed on /cpu:0."""
    a = tf.Variable([1.0, 2.0], name="a")
    tf.get_variable("b", [3], collections=[tf.GraphKeys.LOCAL_VARIABLES])
    tf.Variable(3, name="c")
    report = tf.report_uninitialized_variables()
    only_a = tf.report_uninitialized_variables([a], name="only_a")
    with tf.Session() as sess:
        before = sess.run(report).tolist()
        sess.run(a.initializer)
        after = sess.run([report, only_a])
    return {
        "ops": _report_ops(tf, "report_uninitialized_variables"),
        "only_a_ops": _report_ops(tf, "only_a"),
        "before": before,
        "after": [v.tolist() for v in after],
    }


@case
def an_outer_device_scope_merges_with_the_report_device(tf):
    """Under `tf.device("/job:worker/task:1")` the report's ops get that task's CPU."""
    tf.Variable(3, name="c")
    with tf.device("/job:worker/task:1"):
        tf.report_uninitialized_variables(name="under_a_task")
    return {"ops": _report_ops(tf, "under_a_task")}


@case
def an_empty_report_is_a_cpu_constant(tf):
    """With no variables at all the report is an empty string constant on /cpu:0."""
    report = tf.report_uninitialized_variables()
    with tf.Session() as sess:
        value = sess.run(report)
    return {"ops": _report_ops(tf, "report_uninitialized_variables"), "value": value.tolist()}


@case
def the_report_device_comes_from_the_environment(tf):
    """TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING, read when the report is built, names
    the device of the ops after the flags."""
    tf.Variable(1.0, name="v")
    os.environ["TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING"] = "/job:ps/task:0/cpu:0"
    try:
        tf.report_uninitialized_variables()
    finally:
        del os.environ["TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING"]
    return {"ops": _report_ops(tf, "report_uninitialized_variables")}


@case
def a_supervisor_ready_op_is_placed_the_same_way(tf):
    """tf.train.Supervisor's ready_op (and, with no local variable, no
    ready_for_local_init_op; its graph is what a
    program's graph.pbtxt and checkpoints' MetaGraphs show)."""
    tf.Variable(1.0, name="w")
    tf.train.get_or_create_global_step()
    sv = tf.train.Supervisor(logdir=None, save_summaries_secs=0, saver=None)
    devices = sorted(
        {
            op.device
            for op in tf.get_default_graph().get_operations()
            if op.name.startswith("report_uninitialized_variables")
        }
    )
    return {
        "ready_op": sv.ready_op.name,
        "ready_for_local_init_op": getattr(sv.ready_for_local_init_op, "name", None),
        "devices": devices,
        "ops": _report_ops(tf, "report_uninitialized_variables"),
    }


def _asserted(tf, build):
    """The ops tf.assert_variables_initialized builds and what running it gives before and
    after the variables are initialized."""
    check = build()
    g = tf.get_default_graph()
    ops = [
        [op.name, op.type, op.device, [t.name for t in op.inputs], op.colocation_groups()]
        for op in g.get_operations()
        if op.type in ("Rank", "Pack", "ReadVariableOp") or op.name.startswith("Rank")
    ]
    result = {"ops": ops, "kind": type(check).__name__ if check is not None else None}
    if check is None:
        return result
    result["name"] = check.name
    with tf.Session() as sess:
        try:
            sess.run(check)
            result["before"] = None
        except Exception as e:  # the class is what is compared
            result["before"] = type(e).__name__
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        result["after"] = sess.run(check).tolist()
    return result


@case
def asserting_initialized_variables_reads_their_ranks(tf):
    """tf.assert_variables_initialized: a Rank of each variable (colocated with it, no
    constant folding), stacked when there are several; running it before initialization
    fails as reading the variable does."""
    tf.Variable([[1.0, 2.0]], name="a")
    tf.get_variable("b", [3], collections=[tf.GraphKeys.LOCAL_VARIABLES])
    tf.Variable(3, name="c")
    return _asserted(tf, tf.assert_variables_initialized)


@case
def asserting_one_initialized_variable_is_its_rank(tf):
    """With one variable the result is that variable's Rank, not a stack."""
    v = tf.Variable([1.0, 2.0], name="only")
    tf.Variable(0, name="other")
    return _asserted(tf, lambda: tf.assert_variables_initialized([v]))


@case
def asserting_no_variables_is_none(tf):
    """Without any variable tf.assert_variables_initialized returns None."""
    return _asserted(tf, tf.assert_variables_initialized)
