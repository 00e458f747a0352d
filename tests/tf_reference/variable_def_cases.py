"""The `trainable` field of a VariableDef written from a variable whose `trainable` argument is
not a bool: `tf.Variable(initial, "name")` passes the name where `trainable` goes, TF 1.15 keeps
the string as the variable's `trainable`, and writing its VariableDef fails with protobuf 3.x's
TypeError (floats and numpy scalars are truncated to a bool instead); exporting a MetaGraph
logs that error under a warning and leaves the variables' collections out. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_variable_defs.py and on tfcluster by
tests/unit/test_variable_def_trainable_values.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import LoggedWarnings, error
except ImportError:  # run from tests/tf_reference by the recorder
    from case_tools import LoggedWarnings, error

# (label, value given as tf.Variable's second positional argument, `trainable`)
TRAINABLE_VALUES = [
    ("word", lambda: "filter_bias"),
    ("empty_word", lambda: ""),
    ("none", lambda: None),
    ("int_two", lambda: 2),
    ("int_zero", lambda: 0),
    ("float_half", lambda: 0.5),
    ("float_one", lambda: 1.0),
    ("list", lambda: [1]),
    ("numpy_bool", lambda: np.bool_(True)),
    ("numpy_int", lambda: np.int64(3)),
    ("numpy_float", lambda: np.float32(2.0)),
    ("numpy_float_small", lambda: np.float64(0.25)),
    ("bytes", lambda: b"b"),
    ("dict", lambda: {"a": 1}),
]


def trainable_values_in_variable_defs(tf):
    """For each value: whether the variable keeps it as `trainable`, whether it is in the
    trainable collection, and the VariableDef's `trainable` (or the error writing it)."""
    out = {}
    for label, make in TRAINABLE_VALUES:
        with tf.Graph().as_default():
            value = make()
            v = tf.Variable(1.0, value)
            kept = v.trainable is value
            in_collection = len(tf.trainable_variables()) == 1
            failure = error(v.to_proto)
            written = None if failure else bool(v.to_proto().trainable)
            out[label] = {
                "kept": kept,
                "in_collection": in_collection,
                "written": written,
                "error": failure,
            }
    return out


def meta_graph_of_a_name_passed_as_trainable(tf):
    """export_meta_graph with a variable made as tf.Variable(1.0, "xx"): the warnings it
    logs and the collections it writes."""
    with tf.Graph().as_default():
        tf.Variable(1.0, "xx")
        tf.Variable(2.0, True)
        with LoggedWarnings() as handler:
            meta = tf.train.export_meta_graph()
        return {
            # (sorted: tf.Variable adds itself to its collections through a set, so which
            # of them the graph holds first, and is serialized first, varies run to run)
            "warnings": sorted(m for m in handler.messages if "deprecated" not in m),
            "collections": sorted(meta.collection_def.keys()),
            "nodes": len(meta.graph_def.node),
        }


CASES = {
    "trainable_values_in_variable_defs": trainable_values_in_variable_defs,
    "meta_graph_of_a_name_passed_as_trainable": meta_graph_of_a_name_passed_as_trainable,
}
