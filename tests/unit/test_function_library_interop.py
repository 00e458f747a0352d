"""Graphs that carry functions cross between TF 1.15 and tfcluster, both ways.

TF 1.15 wrote MetaGraphs (tf.data transformations, tf.function, cond_v2/while_v2, a Defun
called by name) and a SavedModel with functions into tests/tf_reference/data/function_library/tf
and recorded what they compute (record_function_library.py); tfcluster imports and runs them.
The other way, TF 1.15 imported the MetaGraphs tfcluster wrote for the same programs
(write_function_library_samples.py) and recorded what it got; tfcluster's exports of those
programs and of a corpus of other graphs are checked against TF 1.15's op defs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from support.tf115_graph_check import graph_def_problems
from tf_reference import reference
from tf_reference.function_library_cases import CASES, run_spec
from tf_reference.function_library_corpus import CORPUS
from tfcluster.protos import attr_value_pb2, function_pb2, graph_pb2, meta_graph_pb2

AREA = "function_library"
FILES = os.path.join(reference.DATA_DIR, AREA)


def _spec(folder: str, name: str) -> dict[str, Any]:
    with open(os.path.join(FILES, folder, f"{name}.json")) as f:
        spec: dict[str, Any] = json.load(f)
    return spec


def _assert_steps(actual: list[list[Any]], expected: list[list[Any]]) -> None:
    assert len(actual) == len(expected), f"{len(actual)} steps, TF ran {len(expected)}"
    for got_step, want_step in zip(actual, expected):
        assert len(got_step) == len(want_step)
        for got, want in zip(got_step, want_step):
            reference.assert_close(got, want)


TF_CASES = sorted(
    [*CASES, "defun_call", "defun_nested_call", "defun_with_grad_func", "switch_case_v2"]
)


@pytest.mark.parametrize("name", TF_CASES)
def test_metagraph_tf_wrote_imports_and_runs(name: str) -> None:
    with tf.Graph().as_default():
        tf.train.import_meta_graph(os.path.join(FILES, "tf", f"{name}.meta"))
        steps = run_spec(tf, _spec("tf", name))
    _assert_steps(steps, reference.case(AREA, f"tf/{name}")["steps"])


def test_saved_model_tf_wrote_with_functions_loads_and_serves() -> None:
    recorded = reference.case(AREA, "tf/saved_model_function")
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(
            sess, ["serve"], os.path.join(FILES, "tf", "saved_model_function")
        )
        sig = meta.signature_def["serving_default"]
        x, y = sig.inputs["x"].name, sig.outputs["y"].name
        reference.assert_close(sess.run(y, {x: np.array([1.0, 2.0], np.float32)}), recorded["pos"])
        reference.assert_close(
            sess.run(y, {x: np.array([-1.0, -2.0], np.float32)}), recorded["neg"]
        )


def test_gradient_of_a_loop_tf_wrote() -> None:
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(os.path.join(FILES, "tf", "while_captures_and_limit.meta"))
        (grad,) = tf.gradients(g.get_tensor_by_name("s:0"), g.get_tensor_by_name("x:0"))
        with tf.Session() as sess:
            got = sess.run(grad)
    reference.assert_close(got, reference.case(AREA, "tf/gradient_of_imported_loop")["grad"])


def test_library_gradient_function_gives_the_gradient_and_is_written_back() -> None:
    path = os.path.join(FILES, "tf", "defun_with_grad_func.meta")
    recorded = reference.case(AREA, "tf/defun_with_grad_func/gradient")
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(path)
        (grad,) = tf.gradients(g.get_tensor_by_name("y:0"), g.get_tensor_by_name("x:0"))
        with tf.Session() as sess:
            reference.assert_close(sess.run(grad), recorded["grad"])
        (call,) = [op for op in g.get_operations() if "_gradient" in op.attrs]
        gd = g.as_graph_def()
    (pair,) = gd.library.gradient
    (node,) = [n for n in gd.node if n.name == call.name]
    assert pair.function_name == node.attr["f"].func.name
    assert pair.gradient_func in {f.signature.name for f in gd.library.function}


def test_tf_serves_the_saved_model_tfcluster_wrote_with_functions() -> None:
    theirs = reference.case(AREA, "tf/saved_model_function")
    served = reference.case(AREA, "tfcluster_saved_model_function")
    for key in ("pos", "neg"):
        reference.assert_close(served[key], theirs[key])


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_on_tfcluster_computes_what_tf_does(name: str) -> None:
    with tf.Graph().as_default():
        spec = CASES[name](tf)
        steps = run_spec(tf, spec)
    _assert_steps(steps, reference.case(AREA, f"tf/{name}")["steps"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_tf_runs_the_metagraph_tfcluster_wrote(name: str) -> None:
    """TF 1.15 imported tfcluster's file for the program and computed what it computes."""
    recorded = reference.case(AREA, f"tfcluster_file/{name}")
    assert "error" not in recorded, f"TF 1.15 refused tfcluster's file: {recorded['error']}"
    _assert_steps(recorded["steps"], reference.case(AREA, f"tf/{name}")["steps"])
    # And tfcluster still writes a file of that form: same programs, checked op by op.
    with tf.Graph().as_default() as g:
        CASES[name](tf)
        assert graph_def_problems(g.as_graph_def()) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_tfcluster_reads_back_what_it_wrote(name: str) -> None:
    with tf.Graph().as_default() as g:
        spec = CASES[name](tf)
        meta = tf.train.export_meta_graph()
    if name.startswith(("data_", "function_")):
        assert len(meta.graph_def.library.function) > 0
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta)
        steps = run_spec(tf, spec)
    del g
    _assert_steps(steps, reference.case(AREA, f"tf/{name}")["steps"])


def test_exported_function_bodies_are_library_functions() -> None:
    with tf.Graph().as_default() as g:
        CASES["data_map"](tf)
        gd = g.as_graph_def()
    names = {f.signature.name for f in gd.library.function}
    (map_node,) = [n for n in gd.node if n.op == "MapDataset"]
    assert set(map_node.attr["f"].func.attr) == set()
    assert map_node.attr["f"].func.name in names
    assert "output_sparse" not in gd.node[0].attr


# ---- a corpus of tfcluster graphs, exported and checked against TF 1.15's op defs -----------
def _every_function_case(tf: Any) -> None:
    for program in CASES.values():
        program(tf)


FULL_CORPUS: dict[str, Callable[[Any], Any]] = {
    **CORPUS,
    "every_function_case": _every_function_case,
}


def _exported(name: str) -> graph_pb2.GraphDef:
    with tf.Graph().as_default() as g:
        written = FULL_CORPUS[name](tf)
        if written is None:
            return g.as_graph_def()
        with open(written, "rb") as f:
            return meta_graph_pb2.MetaGraphDef.FromString(f.read()).graph_def


@pytest.mark.parametrize("name", sorted(FULL_CORPUS))
def test_exported_graph_passes_tf115_op_defs(name: str) -> None:
    assert graph_def_problems(_exported(name)) == []


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_tf_imported_and_ran_the_corpus_metagraph(name: str) -> None:
    """TF 1.15 imported every node of tfcluster's file, initialized it and ran its train op."""
    recorded = reference.case(AREA, f"tfcluster_corpus/{name}")
    assert "error" not in recorded, f"TF 1.15 refused tfcluster's file: {recorded['error']}"
    with open(os.path.join(FILES, "tfcluster", "corpus", f"{name}.meta"), "rb") as f:
        gd = meta_graph_pb2.MetaGraphDef.FromString(f.read()).graph_def
    assert recorded["nodes"] == len(gd.node)
    assert recorded["missing"] == []
    if name in ("estimator_checkpoint_meta", "rnn_training", "partitioned_embeddings"):
        assert recorded["ran"], "TF ran no train op"


# ---- bad libraries ---------------------------------------------------------------------------
def _graph_calling(library: function_pb2.FunctionDefLibrary, func: str) -> graph_pb2.GraphDef:
    gd = graph_pb2.GraphDef()
    gd.library.CopyFrom(library)
    x = gd.node.add(name="x", op="Const")
    x.attr["dtype"].type = tf.float32.as_datatype_enum
    x.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.float32(2.0)))
    call = gd.node.add(name="call", op="PartitionedCall", input=["x"])
    call.attr["Tin"].list.type.append(tf.float32.as_datatype_enum)
    call.attr["Tout"].list.type.append(tf.float32.as_datatype_enum)
    call.attr["f"].func.CopyFrom(attr_value_pb2.NameAttrList(name=func))
    return gd


def _square_library(op: str = "Square", extra_input: bool = False) -> Any:
    library = function_pb2.FunctionDefLibrary()
    f = library.function.add()
    f.signature.name = "sq"
    f.signature.input_arg.add(name="v", type=tf.float32.as_datatype_enum)
    f.signature.output_arg.add(name="out", type=tf.float32.as_datatype_enum)
    node = f.node_def.add(name="s", op=op, input=["v", "v"] if extra_input else ["v"])
    node.attr["T"].type = tf.float32.as_datatype_enum
    f.ret["out"] = "s:y:0"
    return library


def _run_graph_def(gd: graph_pb2.GraphDef) -> Any:
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            return sess.run("call:0")


def test_a_library_function_runs_by_partitioned_call() -> None:
    assert _run_graph_def(_graph_calling(_square_library(), "sq")) == 4.0


def test_func_attr_naming_a_missing_function_is_not_found() -> None:
    with pytest.raises(tf.errors.NotFoundError, match="'nope' is not in the GraphDef's function"):
        _run_graph_def(_graph_calling(_square_library(), "nope"))


def test_unknown_op_inside_a_function_is_not_found() -> None:
    with pytest.raises(tf.errors.NotFoundError, match="NoSuchOp"):
        _run_graph_def(_graph_calling(_square_library(op="NoSuchOp"), "sq"))


def test_bad_output_reference_inside_a_function_is_invalid() -> None:
    library = _square_library()
    library.function[0].ret["out"] = "s:nosuch:0"
    with pytest.raises(tf.errors.InvalidArgumentError, match="has no output 'nosuch'"):
        _run_graph_def(_graph_calling(library, "sq"))


def test_call_with_the_wrong_argument_count_is_invalid_and_the_session_goes_on() -> None:
    gd = _graph_calling(_square_library(), "sq")
    gd.node[1].input.append("x")
    gd.node[1].attr["Tin"].list.type.append(tf.float32.as_datatype_enum)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        ok = tf.constant(3.0) * 2.0
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run("call:0")
            assert sess.run(ok) == 6.0


def test_a_function_calling_itself_is_invalid() -> None:
    library = _square_library()
    f = library.function[0]
    f.node_def[0].op = "sq"
    f.node_def[0].ClearField("attr")
    f.ret["out"] = "s:out:0"
    with pytest.raises(tf.errors.InvalidArgumentError, match="calls itself"):
        _run_graph_def(_graph_calling(library, "sq"))


def test_metagraph_bytes_parse_as_tf_function_library() -> None:
    """The library field is TF's FunctionDefLibrary (signature, node_def, ret)."""
    with open(os.path.join(FILES, "tf", "function_call.meta"), "rb") as f:
        mgd = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    (fdef,) = list(mgd.graph_def.library.function)
    assert fdef.signature.input_arg[0].name == "x"
    assert [n.op for n in fdef.node_def] == ["Const", "Mul", "Const", "AddV2", "Identity"]
