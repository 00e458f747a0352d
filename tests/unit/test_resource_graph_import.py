"""Graphs TF 1.15 wrote with resource variables (tests/tf_reference/record_resource_graphs.py)
import into tfcluster: a tf.keras Sequential model's MetaGraph and SavedModel, and a
`get_variable(use_resource=True)` model trained with Adam and with Momentum. They restore TF's
checkpoint, infer TF's predictions and keep training to TF's recorded losses and values. The
other way: tfcluster builds that program with resource variables as TF does, and TF 1.15 ran
the graphs and checkpoints tfcluster wrote (write_resource_graph_samples.py)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference, resource_graph_cases
from tf_reference.reference import DATA_DIR

TF_FILES = os.path.join(DATA_DIR, "resource_graphs", "tf")
TFCLUSTER_FILES = os.path.join(DATA_DIR, "resource_graphs", "tfcluster")


def _assert_variables(sess: Any, want: dict[str, Any]) -> None:
    got = {v.op.name: sess.run(v) for v in tf.global_variables()}
    assert sorted(got) == sorted(want)
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("optimizer", ["adam", "momentum"])
def test_get_variable_use_resource_metagraph_restores_and_trains_as_tf(optimizer: str) -> None:
    case = reference.case("resource_graphs", f"get_variable_{optimizer}")
    prefix = os.path.join(TF_FILES, f"get_variable_{optimizer}", case["checkpoint"])
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        assert [v.name for v in tf.global_variables()] == case["variables"]
        assert sorted({v.op.type for v in tf.global_variables()}) == case["var_op_types"]
        _assert_variables(sess, case["values"])
        feeds = {"x:0": case["x"], "y:0": case["y"]}
        graph = tf.get_default_graph()
        prediction = graph.get_tensor_by_name("add_1:0")
        np.testing.assert_allclose(sess.run(prediction, feeds), case["prediction"], rtol=1e-5)
        train_op = tf.get_collection("train_op")[0]
        losses = [sess.run(["loss:0", train_op], feeds)[0] for _ in case["losses"]]
        np.testing.assert_allclose(losses, case["losses"], rtol=1e-5)
        _assert_variables(sess, case["after"])


def test_keras_sequential_metagraph_restores_and_trains_as_tf() -> None:
    case = reference.case("resource_graphs", "keras")
    names = case["names"]
    prefix = os.path.join(TF_FILES, "keras", "model")
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        assert [v.name for v in tf.global_variables()] == case["variables"]
        assert {v.op.type for v in tf.global_variables()} == {"VarHandleOp"}
        _assert_variables(sess, case["values"])
        got = sess.run(names["output"], {names["input"]: case["x"]})
        np.testing.assert_allclose(got, case["prediction"], rtol=1e-5, atol=1e-6)
        feeds = {names["input"]: case["x"], names["target"]: case["y"]}
        train_op = tf.get_collection("train_op")[0]
        assert train_op.name == names["train_op"]
        losses = [sess.run([names["loss"], train_op], feeds)[0] for _ in case["losses"]]
        np.testing.assert_allclose(losses, case["losses"], rtol=1e-5)
        _assert_variables(sess, case["after"])


def test_keras_saved_model_loads_and_infers_as_tf() -> None:
    case = reference.case("resource_graphs", "keras")
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(
            sess,
            [tf.saved_model.tag_constants.SERVING],
            os.path.join(TF_FILES, "keras_saved_model"),
        )
        signature = meta.signature_def["serving_default"]
        x = signature.inputs["x"].name
        y = signature.outputs["y"].name
        np.testing.assert_allclose(
            sess.run(y, {x: case["x"]}), case["prediction"], rtol=1e-5, atol=1e-6
        )
        _assert_variables(sess, case["values"])


def test_canned_estimator_saved_model_loads_and_predicts_as_tf() -> None:
    """A DNNRegressor's export: resource variables, default attrs stripped (TF's importer adds
    them back, so does tfcluster's)."""
    case = reference.case("resource_graphs", "dnn_regressor_saved_model")
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(
            sess, ["serve"], os.path.join(TF_FILES, "dnn_regressor_saved_model")
        )
        signature = meta.signature_def["predict"]
        assert "VarHandleOp" in {v.op.type for v in tf.global_variables()}
        got = sess.run(
            signature.outputs["predictions"].name, {signature.inputs["x"].name: case["x"]}
        )
    np.testing.assert_allclose(got, case["predictions"], rtol=1e-6, atol=1e-7)


def test_keras_graph_uses_the_resource_ops_tf_made() -> None:
    case = reference.case("resource_graphs", "keras")
    prefix = os.path.join(TF_FILES, "keras", "model")
    with tf.Graph().as_default():
        tf.train.import_meta_graph(prefix + ".meta")
        types = {op.type for op in tf.get_default_graph().get_operations()}
    # TF recorded its graph after simple_save added a second (sharded) Saver's ops.
    assert types <= set(case["op_types"])
    assert {"VarHandleOp", "ReadVariableOp", "ResourceApplyKerasMomentum"} <= types


# ---- tfcluster's own resource-variable graphs ---------------------------------------------
@pytest.mark.parametrize("optimizer", ["adam", "momentum"])
def test_use_resource_program_builds_tf_graph_and_trains_as_tf(optimizer: str) -> None:
    """get_variable(use_resource=True) makes VarHandleOp variables, ResourceApply*/
    ResourceGather/ResourceScatter* updates and TF's op names; values and losses are TF's."""
    case = reference.case("resource_graphs", f"get_variable_{optimizer}")
    x, y = resource_graph_cases.data(1)
    with tf.Graph().as_default():
        xs, ys, _, loss, train_op, _ = resource_graph_cases.get_variable_model(tf, optimizer)
        tf.add_to_collection("train_op", train_op)
        tf.train.Saver()
        graph = tf.get_default_graph()
        assert [v.name for v in tf.global_variables()] == case["variables"]
        assert sorted({v.op.type for v in tf.global_variables()}) == case["var_op_types"]
        assert tf.get_variable_scope().use_resource is None
        assert sorted({op.type for op in graph.get_operations()}) == case["op_types"]
        init = tf.global_variables_initializer()
        # TF's op names, but for the gradients' (tfcluster's gradient graphs differ in
        # places for every kind of variable: no tuple/control_dependency gates).
        ours = {op.name for op in graph.get_operations() if not op.name.startswith("gradients/")}
        assert ours == {n for n in case["op_names"] if not n.startswith("gradients/")}
        with tf.Session() as sess:
            sess.run(init)
            _assert_variables(sess, case["initial"])
            feeds = {xs: x, ys: y}
            losses = [sess.run([loss, train_op], feeds)[0] for _ in range(3)]
            np.testing.assert_allclose(losses, case["first_losses"], rtol=1e-5)
            _assert_variables(sess, case["values"])


def test_raw_resource_op_graph_tfcluster_wrote_runs_in_tf() -> None:
    """TF 1.15 imported tfcluster's MetaGraph of raw resource ops and ran it: tfcluster runs
    the very file to the same values."""
    case = reference.case("resource_graphs", "tfcluster_raw_ops_in_tf")
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.train.import_meta_graph(os.path.join(TFCLUSTER_FILES, "raw_resource_ops.meta"))
        sess.run("init")
        np.testing.assert_array_equal(sess.run("read:0"), case["before"])
        for _ in range(2):
            sess.run("train")
        np.testing.assert_array_equal(sess.run("read:0"), case["after"])
        np.testing.assert_array_equal(sess.run("shape:0"), case["shape"])
        assert sess.run("is_initialized:0") == case["initialized"]


@pytest.mark.parametrize("optimizer", ["adam", "momentum"])
def test_use_resource_checkpoint_tfcluster_wrote_trains_in_tf_as_here(optimizer: str) -> None:
    """TF 1.15 restored tfcluster's saved resource-variable program and trained on: tfcluster
    restoring the same files gets TF's values and losses."""
    case = reference.case("resource_graphs", f"tfcluster_get_variable_{optimizer}_in_tf")
    assert case["var_op_types"] == ["VarHandleOp", "VariableV2"]
    prefix = os.path.join(TFCLUSTER_FILES, f"get_variable_{optimizer}", "model-3")
    x, y = resource_graph_cases.data(1)
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        _assert_variables(sess, case["values"])
        train_op = tf.get_collection("train_op")[0]
        feeds = {"x:0": x, "y:0": y}
        losses = [sess.run(["loss:0", train_op], feeds)[0] for _ in case["losses"]]
        np.testing.assert_allclose(losses, case["losses"], rtol=1e-5)
        _assert_variables(sess, case["after"])


def test_enable_resource_variables_makes_var_handle_ops_until_disabled() -> None:
    """TF 1.15's default creator: the argument, else the variable scope's use_resource, else
    tf.enable_resource_variables()' default."""
    try:
        tf.enable_resource_variables()
        assert tf.resource_variables_enabled() is True
        with tf.Graph().as_default():
            a = tf.Variable(1.0, name="a")
            b = tf.get_variable("b", [2])
            c = tf.Variable(1.0, name="c", use_resource=False)
            with tf.variable_scope("ref", use_resource=False):
                d = tf.get_variable("d", [2])
            assert [v.op.type for v in (a, b, c, d)] == [
                "VarHandleOp",
                "VarHandleOp",
                "VariableV2",
                "VariableV2",
            ]
            assert [op.name for op in a.op.graph.get_operations()][:6] == [
                "a/Initializer/initial_value",
                "a",
                "a/IsInitialized/VarIsInitializedOp",
                "a/Assign",
                "a/Read/ReadVariableOp",
                "b/Initializer/random_uniform/shape",
            ]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                assert sess.run(a.assign_add(2.0)) == 3.0
                assert list(sess.run(tf.report_uninitialized_variables())) == []
    finally:
        tf.disable_resource_variables()
    assert tf.resource_variables_enabled() is False
    with tf.Graph().as_default():
        assert tf.Variable(1.0).op.type == "VariableV2"


def test_reading_an_uninitialized_resource_variable_names_it() -> None:
    with tf.Graph().as_default():
        v = tf.get_variable("never", [2], use_resource=True)
        with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError, match="never"):
            sess.run(v)


def test_resource_variable_methods_give_tf_answers() -> None:
    want = reference.case("resource_graphs", "resource_variable_api")
    got = resource_graph_cases.resource_variable_api(tf)
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        if isinstance(value, np.ndarray) or (
            isinstance(value, list) and value and isinstance(value[0], np.ndarray)
        ):
            np.testing.assert_array_equal(np.asarray(got[key]), np.asarray(value), err_msg=key)
        else:
            assert got[key] == value, key


def test_custom_gradient_takes_resource_variables_made_inside() -> None:
    want = reference.case("resource_graphs", "custom_gradient_variable")
    got = resource_graph_cases.custom_gradient_creating_a_resource_variable(tf)
    assert (got["variable"], got["variable_op"]) == (want["variable"], want["variable_op"])
    np.testing.assert_array_equal(got["y"], want["y"])
    for g, w in zip(got["grads"], want["grads"]):
        np.testing.assert_array_equal(g, w)


def test_freezing_a_tf_keras_graph_makes_constants_that_infer_as_tf() -> None:
    """convert_variables_to_constants on TF's resource-variable graph: VarHandleOps become
    Consts and their reads Identities (TF 1.15's rewrite); the frozen graph infers as TF."""
    case = reference.case("resource_graphs", "keras")
    names = case["names"]
    prefix = os.path.join(TF_FILES, "keras", "model")
    output = names["output"].split(":")[0]
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, sess.graph.as_graph_def(), [output]
        )
    types = {node.op for node in frozen.node}
    assert not types & {"VarHandleOp", "ReadVariableOp", "VarIsInitializedOp"}
    assert {node.name for node in frozen.node if node.op == "Const"} >= {
        "hidden/kernel",
        "hidden/bias",
        "out/kernel",
        "out/bias",
    }
    with tf.Graph().as_default(), tf.Session() as sess:
        (y,) = tf.import_graph_def(frozen, return_elements=[names["output"]], name="")
        got = sess.run(y, {names["input"]: case["x"]})
    np.testing.assert_allclose(got, case["prediction"], rtol=1e-5, atol=1e-6)


def test_freezing_resource_gathers_makes_gathers_of_constants() -> None:
    with tf.Graph().as_default():
        with tf.variable_scope("m", use_resource=True):
            emb = tf.get_variable("emb", [5, 2], initializer=tf.random_uniform_initializer(seed=1))
        rows = tf.identity(tf.nn.embedding_lookup(emb, [4, 0, 4]), name="rows")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(rows)
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, sess.graph.as_graph_def(), ["rows"]
            )
    assert "ResourceGather" not in {node.op for node in frozen.node}
    with tf.Graph().as_default(), tf.Session() as sess:
        (out,) = tf.import_graph_def(frozen, return_elements=["rows:0"], name="")
        np.testing.assert_array_equal(sess.run(out), want)
