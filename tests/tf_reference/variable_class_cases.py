"""The class names of the variables TF1 programs make (a program printing `type(v)` shows
it): tf.Variable and tf.get_variable give a reference variable (TF 1.15's RefVariable) unless
asked for a resource variable. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_variable_classes.py and on tfcluster by tests/unit/test_variable_class_names.py.
Python 3.7 code."""

from __future__ import annotations


def _names(variables):
    return [type(v).__name__ for v in variables]


def default_variables(tf):
    """tf.Variable, tf.get_variable and a variable rebuilt from its VariableDef proto."""
    tf.reset_default_graph()
    v = tf.Variable(1.0)
    g = tf.get_variable("g", shape=[2])
    rebuilt = tf.Variable(variable_def=v.to_proto())
    return {
        "names": _names([v, g, rebuilt]),
        "is_variable": [isinstance(x, tf.Variable) for x in (v, g, rebuilt)],
    }


def resource_variables(tf):
    """use_resource=True (argument or variable scope) gives a ResourceVariable."""
    tf.reset_default_graph()
    v = tf.Variable(1.0, use_resource=True)
    g = tf.get_variable("g", shape=[2], use_resource=True)
    with tf.variable_scope("s", use_resource=True):
        s = tf.get_variable("h", shape=[2])
    return {
        "names": _names([v, g, s]),
        "is_variable": [isinstance(x, tf.Variable) for x in (v, g, s)],
    }


def through_a_creator_scope(tf):
    """tf.Variable inside a variable_creator_scope whose creator calls the next one."""
    tf.reset_default_graph()

    def creator(next_creator, **kwargs):
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        v = tf.Variable(1.0)
        r = tf.Variable(1.0, use_resource=True)
    return {"names": _names([v, r])}


CASES = {
    "default_variables": default_variables,
    "resource_variables": resource_variables,
    "through_a_creator_scope": through_a_creator_scope,
}
