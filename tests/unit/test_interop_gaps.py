"""Graphs and sessions behave as TF 1.15's where they met it badly before (values recorded by
tests/tf_reference/record_interop_gaps.py under TF 1.15, programs in interop_gaps_cases.py):

- a partial run whose step fails: later calls of the handle fail with the error, as TF's;
- tf.gradients through a Case op (tf.switch_case) of a MetaGraph TF wrote;
- library functions no node calls survive a MetaGraph round trip (TF keeps them);
- a while_loop updating ref variables exports as TF1's loop frame, which TF 1.15 imports and
  runs to the same values;
- CudnnRNN's skip_input / dropout / num_proj on CPU raise TF 1.15's error class there.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.tf115_graph_check import graph_def_problems
from tf_reference import reference
from tf_reference.interop_gaps_cases import (
    CUDNN_OPTIONS,
    PARTIAL_RUN_CASES,
    build_ref_variable_loop,
    case_gradients,
    cudnn_option_on_cpu,
    function_updates_ref_variable,
)
from tfcluster.ops import cudnn_rnn_ops

_FILES = os.path.join(reference.DATA_DIR, "interop_gaps")


def _same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for key in recorded:
            _same(got[key], recorded[key], f"{where}.{key}")
    elif isinstance(recorded, np.ndarray):
        reference.assert_close(np.asarray(got), recorded, rtol=1e-5, atol=1e-6)
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(PARTIAL_RUN_CASES))
def test_partial_run_after_a_failing_step_fails_as_tf(name: str) -> None:
    with tf.Graph().as_default():
        got = PARTIAL_RUN_CASES[name](tf)
    _same(got, reference.case("interop_gaps", f"partial_run/{name}"), name)


def test_gradients_through_a_case_op_tf_wrote() -> None:
    recorded = reference.case("interop_gaps", "case_gradients")
    assert recorded.pop("case_ops") == ["Case"]
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(os.path.join(_FILES, "tf", "switch_case.meta"))
        assert "Case" in {op.type for op in g.get_operations()}
        x, y, index, out = (g.get_tensor_by_name(n) for n in ("x:0", "y:0", "index:0", "out:0"))
        with tf.Session() as sess:
            got = case_gradients(tf, x, y, index, out, sess)
        # The gradient is a Case on the same index, as TF's _CaseGrad builds it.
        grad_cases = [
            op for op in g.get_operations() if op.type == "Case" and op.name != "pick/indexed_case"
        ]
        assert [op.inputs[0] for op in grad_cases] == [index]
    _same(got, recorded, "case_gradients")


def _library_names(graph_def: Any) -> list[str]:
    return sorted(f.signature.name for f in graph_def.library.function)


def test_a_meta_graph_round_trip_keeps_functions_no_node_calls() -> None:
    recorded = reference.case("interop_gaps", "unused_library")
    # TF's file has a Defun never called and the functions of a node left out of the export.
    assert "never_called" in recorded["in_file"]
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(os.path.join(_FILES, "tf", "unused_library.meta"))
        exported = tf.train.export_meta_graph()
        assert _library_names(exported.graph_def) == recorded["tf_round_trip"]
        assert _library_names(g.as_graph_def()) == recorded["tf_round_trip"]
        with tf.Session() as sess:
            reference.assert_close(sess.run("out:0"), recorded["out"])
    # TF 1.15 read tfcluster's round trip of the file and found every function in it.
    assert recorded["tf_reads_tfcluster"] == recorded["tf_round_trip"]
    reference.assert_close(recorded["tfcluster_out"], recorded["out"])


@pytest.mark.parametrize("name, limit", [("ref_loop", None), ("ref_loop_limited", 3)])
def test_a_loop_updating_ref_variables_exports_as_tf1_control_flow(name: str, limit: Any) -> None:
    recorded = reference.case("interop_gaps", f"ref_loop/{name}")
    with tf.Graph().as_default() as g:
        v, w = build_ref_variable_loop(tf, limit)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            acc, count, v_value, w_value = sess.run(["acc:0", "count:0", v, w])
        graph_def = g.as_graph_def()
    for key, value in (("acc", acc), ("count", count), ("v", v_value), ("w", w_value)):
        reference.assert_close(value, recorded[key])
        # TF 1.15 imported tfcluster's MetaGraph of the program and computed the same.
        reference.assert_close(recorded[f"tfcluster_{key}"], recorded[key])
    assert graph_def_problems(graph_def) == []
    types = {nd.op for nd in graph_def.node}
    assert "_RefHandle" not in types
    # TF's op types (the loop's results are its Exits, as TF1's), a NoOp is tf.group's.
    assert types - {"NoOp"} == set(recorded["op_types"])


@pytest.mark.parametrize(
    "writer, name",
    [("tfcluster", "ref_loop"), ("tf", "ref_loop"), ("tf", "ref_loop_limited")],
)
def test_a_loop_updating_ref_variables_imports_from_a_meta_graph_and_runs(
    writer: str, name: str
) -> None:
    """The loop frame is raised to a While on import; the variables it assigns (RefEnter)
    reach the body as the variables themselves, so the assignments land on them."""
    recorded = reference.case("interop_gaps", f"ref_loop/{name}")
    with tf.Graph().as_default():
        tf.train.import_meta_graph(os.path.join(_FILES, writer, f"{name}.meta"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(["acc:0", "count:0", "v:0", "w:0"])
    for key, value in zip(("acc", "count", "v", "w"), got):
        reference.assert_close(value, recorded[key])


@pytest.mark.parametrize("option", sorted(CUDNN_OPTIONS))
def test_cudnn_options_without_a_cpu_kernel_raise_tfs_class_on_cpu(option: str) -> None:
    recorded = reference.case("interop_gaps", f"cudnn_cpu/{option}")
    with tf.Graph().as_default():
        assert cudnn_option_on_cpu(tf, cudnn_rnn_ops, option) == recorded


def test_a_function_updating_a_ref_variable_is_refused_as_tf_refuses_it() -> None:
    recorded = reference.case("interop_gaps", "ref_function")
    with tf.Graph().as_default():
        got = function_updates_ref_variable(tf)
    _same(got, recorded, "ref_function")
