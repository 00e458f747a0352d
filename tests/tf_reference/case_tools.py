"""What the case modules of losses and metrics share: plain-data views of a graph (its ops,
collections, variables, devices) and of an error, so the same program gives comparable
answers under TensorFlow and under tfcluster.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations


def error_of(fn):
    """{"error": class name, "message": its first line} of what fn raises, or None."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        return {"error": type(e).__name__, "message": text.split("\n")[0]}
    return None


def ops_of(g, prefix=""):
    """[name, type, inputs] of the graph's ops (those under prefix), in creation order; the
    inputs are tensor names, then "^op" for each control input."""
    out = []
    for op in g.get_operations():
        if op.name.startswith(prefix):
            inputs = [t.name for t in op.inputs] + ["^" + c.name for c in op.control_inputs]
            out.append([op.name, op.type, inputs])
    return out


def names(values):
    return [v.name for v in values]


def devices_of(g):
    """op name -> device, for ops that have one."""
    return {op.name: op.device for op in g.get_operations() if op.device}
