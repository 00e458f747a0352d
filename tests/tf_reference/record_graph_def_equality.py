"""Records TF 1.15's tf.test.assert_equal_graph_def verdicts and messages for pairs of
GraphDefs written as text protos (stored with the verdicts, so the test parses the same
text): tests/unit/test_graph_def_equality.py. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_graph_def_equality.py
"""

from __future__ import annotations

import tensorflow as tf
from google.protobuf import text_format
from recorder import Recorder
from tensorflow.core.framework import graph_pb2

if not tf.__version__.startswith("1."):
    raise SystemExit("record_graph_def_equality.py records TensorFlow 1.15")

BASE = (
    'node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } } '
    'node { name: "b" op: "Neg" input: "a" input: "^c" device: "/cpu:0" } '
    'node { name: "c" op: "NoOp" }'
)
RICH = (
    'node { name: "a" op: "Const" device: "/cpu:0" input: "x:1" input: "^y" '
    'attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "s" value { s: "hi\\n" } } '
    'attr { key: "i" value { i: 3 } } attr { key: "f" value { f: 0.5 } } '
    'attr { key: "b" value { b: true } } '
    'attr { key: "shape" value { shape { dim { size: 2 } dim { size: -1 } } } } '
    'attr { key: "l" value { list { i: [1, 2] } } } '
    'attr { key: "ls" value { list { s: ["a", "b"] } } } '
    'attr { key: "lt" value { list { type: [DT_INT32, DT_STRING] } } } }'
)
PAIRS = {
    "equal_reordered": (
        'node { name: "c" op: "NoOp" } '
        'node { name: "b" op: "Neg" input: "a" input: "^c" device: "/cpu:0" } '
        'node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }',
        BASE,
    ),
    "equal_versions_ignored": (BASE + " versions { producer: 7 }", BASE),
    "equal_internal_attr_ignored": (
        BASE.replace('op: "NoOp"', 'op: "NoOp" attr { key: "_class" value { s: "x" } }'),
        BASE,
    ),
    "equal_input_port_zero": (BASE.replace('input: "a"', 'input: "a:0"'), BASE),
    "missing_node": (BASE.replace(' node { name: "c" op: "NoOp" }', ""), BASE),
    "unexpected_node": (BASE + ' node { name: "d" op: "NoOp" }', BASE),
    "missing_rich_node": ("", RICH),
    "other_op": (BASE.replace('"NoOp"', '"Identity"'), BASE),
    "other_device": (BASE.replace("/cpu:0", "/gpu:0"), BASE),
    "other_input": (BASE.replace('input: "a"', 'input: "c"'), BASE),
    "input_count": (BASE.replace(' input: "^c"', ""), BASE),
    "control_input": (
        BASE.replace('input: "^c"', 'input: "^a"'),
        BASE,
    ),
    "attr_value": (BASE.replace("DT_FLOAT", "DT_INT32"), BASE),
    "attr_missing": (BASE.replace(' attr { key: "dtype" value { type: DT_FLOAT } }', ""), BASE),
    "attr_unexpected": (
        BASE.replace('op: "NoOp"', 'op: "NoOp" attr { key: "k" value { i: 4 } }'),
        BASE,
    ),
}

rec = Recorder("graph_def_equality")


def _parse(text):
    return text_format.Parse(text, graph_pb2.GraphDef())


for case, (actual, expected) in sorted(PAIRS.items()):
    try:
        tf.test.assert_equal_graph_def(_parse(actual), _parse(expected))
        verdict = None
    except AssertionError as e:
        verdict = str(e)
    rec.add(case, actual=actual, expected=expected, message=verdict)
rec.add(
    "not_a_graph_def",
    error=rec.catch(lambda: tf.test.assert_equal_graph_def("x", _parse(BASE))),
)
rec.save()
