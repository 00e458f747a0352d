"""tf.nn.rnn_cell and the RNN drivers against TensorFlow 1.15: every program of
tf_reference/rnn_cases.py runs on tfcluster and must give what TensorFlow 1.15 gave: names and
shapes of variables, the graph's ops (outside loops) and the ops each loop step runs, cells'
weights and scope names, output and state values, gradients with respect to inputs and every
variable, and error classes and messages.

TF1 builds a while loop from Enter/Merge/Switch/NextIteration/Exit nodes where tfcluster has
one functional While op: the loop's own ops are compared (named as TF names them), not that
plumbing; the tensors a loop or cond returns are named as TF's Exits and Merges in both
(`while/Exit_3:0`: Identities of the functional op's outputs here).
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference, rnn_checkpoint_model
from tf_reference.codec import decode, encode
from tf_reference.rnn_cases import CASES

# TF1 names every op in one namespace: a cell called in several cond or loop bodies gets
# BiasAdd, BiasAdd_1, ... there, where each tfcluster body has names of its own (BiasAdd in
# each). For these cases the ops in bodies are compared without their _<n> suffixes.
BODY_NAMES_DIFFER = {
    "dynamic_rnn_reused_scope": "the reused cell's ops in the second and third loop",
    "static_rnn_sequence_length": "the cell's ops in the conds of steps 2..4",
    "static_bidirectional_sequence_length": "the cells' ops in the conds of later steps",
}


def _same(got: Any, want: Any, path: str) -> None:
    if isinstance(want, dict) and isinstance(got, dict):
        assert sorted(got) == sorted(want), f"{path}: keys {sorted(got)} != TF's {sorted(want)}"
        for k in want:
            _same(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert got == want if not _has_arrays(want) else len(got) == len(want), (
            f"{path}: {got!r} != TF's {want!r}"
        )
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape, f"{path}: shape {g.shape} != TF's {w.shape}"
        assert g.dtype == w.dtype, f"{path}: dtype {g.dtype} != TF's {w.dtype}"
        if w.dtype.kind in "fc":
            tol = 1e-5 if w.dtype == np.float32 else 1e-10
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=path)
        else:
            assert g.tolist() == w.tolist(), f"{path}: {g!r} != TF's {w!r}"
    else:
        assert got == want, f"{path}: {got!r} != TF's {want!r}"


def _has_arrays(items: list[Any]) -> bool:
    return any(isinstance(x, (np.ndarray, dict, list)) for x in items)


def _run(name: str) -> Any:
    return decode(encode(CASES[name](tf)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_gives_what_tensorflow_1_15_gives(name: str) -> None:
    want = dict(reference.case("rnn", name))
    assert "skipped" not in want, want.get("skipped")
    got = _run(name)
    if name in BODY_NAMES_DIFFER:
        for key in ("ops", "loop_ops"):
            want[key] = _without_body_suffixes(want[key])
            got[key] = _without_body_suffixes(got[key])
    _same(got, want, name)


def _without_body_suffixes(ops: list[list[str]]) -> list[list[str]]:
    out = []
    for op_name, op_type in ops:
        if "while/" in op_name or "/cond" in op_name:
            op_name = re.sub(r"_\d+(?=/|$)", "", op_name)
        out.append([op_name, op_type])
    return sorted(out)


def test_lstm_model_restores_tensorflows_checkpoint_and_trains_on() -> None:
    """TF 1.15 trained the model of rnn_checkpoint_model.py and saved it: tfcluster builds the
    same model, restores TF's checkpoint by variable name, computes TF's logits, states and
    loss, and one more SGD step (gradients through the bidirectional and stacked loops) lands
    where TF's did."""
    want = reference.case("rnn", "checkpoint_model")
    path = os.path.join(reference.DATA_DIR, "rnn_checkpoint", "model.ckpt")
    with tf.Graph().as_default():
        placeholders, fetch, train = rnn_checkpoint_model.build(tf)
        assert [[v.op.name, v.shape.as_list()] for v in tf.global_variables()] == want["variables"]
        feeds = dict(zip(placeholders, rnn_checkpoint_model.inputs()))
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            _same(decode(encode(sess.run(fetch, feeds))), want["at_checkpoint"], "restored")
            sess.run(train, feeds)
            _same(decode(encode(sess.run(fetch, feeds))), want["after_step"], "after one step")
