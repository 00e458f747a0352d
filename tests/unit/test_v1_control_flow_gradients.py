"""tf.gradients through TF1's dataflow control flow imported from a GraphDef (no CondContext
or WhileContext comes with it) makes TF 1.15's ops: a Merge's gradient is an Equal of its
value_index and a Switch per input, a Switch's gradient a Switch per output and a Merge, the
zeros of an untaken Switch output a ZerosLike; values for either branch as TF's. A while loop
imported so cannot be differentiated: AttributeError, as in TF 1.15. Recorded by
tests/tf_reference/record_v1_control_flow_gradients.py under TF 1.15."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference

FILES = os.path.join(reference.DATA_DIR, "v1_control_flow_gradients")
with open(os.path.join(reference.DATA_DIR, "v1_control_flow_gradients.json")) as _f:
    RECORDED: dict[str, Any] = json.load(_f)


def _imported(name: str) -> tf.Graph:
    gd = tf.GraphDef()
    with open(os.path.join(FILES, f"{name}.pb"), "rb") as f:
        gd.ParseFromString(f.read())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    return g


DIFFERENTIABLE = sorted(n for n, c in RECORDED["cases"].items() if "error" not in c)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradient_ops_are_tf1s_op_for_op(name: str) -> None:
    case = RECORDED["cases"][name]
    g = _imported(name)
    with g.as_default():
        first = len(g.get_operations())
        grads = tf.gradients(g.get_tensor_by_name(case["y"]), g.get_tensor_by_name("x:0"))
    made = [[o.type, o.name, [t.name for t in o.inputs]] for o in g.get_operations()[first:]]
    assert made == case["ops"]
    assert (grads[0] is None) == case["grad_is_none"]


@pytest.mark.parametrize("name", [n for n in DIFFERENTIABLE if "grads" in RECORDED["cases"][n]])
@pytest.mark.parametrize("flag", [True, False])
def test_gradient_values_are_tf1s_on_either_branch(name: str, flag: bool) -> None:
    case = RECORDED["cases"][name]
    g = _imported(name)
    with g.as_default():
        grads = tf.gradients(g.get_tensor_by_name(case["y"]), g.get_tensor_by_name("x:0"))
        with tf.Session() as sess:
            got = sess.run(grads, {"x:0": RECORDED["x"], "p:0": flag})[0]
    reference.assert_close(got, np.asarray(case["grads"][str(flag)], np.float32))


def test_an_imported_while_loop_is_not_differentiable_as_in_tf1() -> None:
    case = RECORDED["cases"]["while_loop"]
    g = _imported("while_loop")
    with g.as_default(), pytest.raises(AttributeError, match="WhileContext"):
        tf.gradients(g.get_tensor_by_name(case["y"]), g.get_tensor_by_name("x:0"))
    assert case["error"] == "AttributeError"
    assert [o.name for o in g.get_operations()][-3:] == [op[1] for op in case["ops"]]
