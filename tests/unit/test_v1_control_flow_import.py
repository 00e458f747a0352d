"""Graphs TensorFlow 1.15 wrote with its dataflow control flow (Switch/Merge/Enter/Exit/
NextIteration, stacks of loop gradients) import and run in tfcluster with TF's values:
frozen GraphDefs (tf.cond on a placeholder, a while_loop on an untaken branch, nested
while_loops, dynamic_rnn over an LSTM), a MetaGraph of an LSTM training graph trained for a
few steps, and a SavedModel with batch normalization and dropout switched by a placeholder.
Recorded by tests/tf_reference/record_v1_control_flow.py with TF 1.15 itself."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from google.protobuf import text_format
from tf_reference import reference
from tfcluster.core.protobuf import rewriter_config_pb2

FILES = os.path.join(reference.DATA_DIR, "v1_control_flow")
with open(os.path.join(reference.DATA_DIR, "v1_control_flow.json")) as _f:
    RECORDED: dict[str, Any] = json.load(_f)

pytestmark = pytest.mark.timeout(120)


def _array(recorded: dict[str, Any]) -> np.ndarray:
    return np.asarray(recorded["value"], dtype=recorded["dtype"]).reshape(recorded["shape"])


def _graph_def(name: str) -> Any:
    gd = tf.GraphDef()
    with open(os.path.join(FILES, name), "rb") as f:
        gd.ParseFromString(f.read())
    return gd


def _session_with(name: str) -> tf.Session:
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(_graph_def(name), name="")
    return tf.Session(graph=g)


def test_frozen_cond_on_a_placeholder_gives_tfs_values_on_every_branch() -> None:
    rec = RECORDED["cond"]
    assert {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"} <= set(rec["ops"])
    x = _array(rec["x"])
    with _session_with("cond.pb") as sess:
        for run in rec["runs"]:
            y, z = sess.run(
                ["y:0", "z:0"], {"x:0": x, "flag:0": run["flag"], "other:0": run["other"]}
            )
            reference.assert_close(y, _array(run["y"]))
            reference.assert_close(z, _array(run["z"]))


def test_frozen_nested_while_loops_give_tfs_values() -> None:
    rec = RECORDED["while"]
    v = _array(rec["v"])
    with _session_with("while.pb") as sess:
        for run in rec["runs"]:
            i_final, total = sess.run(["i_final:0", "total:0"], {"n:0": run["n"], "v:0": v})
            reference.assert_close(i_final, _array(run["i_final"]))
            reference.assert_close(total, _array(run["total"]))


def test_frozen_dynamic_rnn_lstm_with_sequence_length_gives_tfs_outputs() -> None:
    rec = RECORDED["lstm"]
    assert {"TensorArrayV3", "TensorArrayWriteV3", "Enter"} <= set(rec["ops"])
    feed = {"x:0": _array(rec["x"]), "lengths:0": _array(rec["lengths"])}
    with _session_with("lstm.pb") as sess:
        outputs, c, h = sess.run(["outputs:0", "c:0", "h:0"], feed)
    reference.assert_close(outputs, _array(rec["outputs"]))
    reference.assert_close(c, _array(rec["c"]))
    reference.assert_close(h, _array(rec["h"]))


def test_frozen_map_fn_scan_case_bidirectional_gru_and_nested_loop_gradient() -> None:
    rec = RECORDED["misc"]
    feed = {"x:0": _array(rec["x"]), "seq:0": _array(rec["seq"])}
    with _session_with("misc.pb") as sess:
        for run in rec["runs"]:
            got = sess.run([f"{n}:0" for n in rec["names"]], {**feed, "k:0": run["k"]})
            for name, value in zip(rec["names"], got):
                reference.assert_close(value, _array(run[name]))


def test_imported_lstm_training_meta_graph_trains_with_tfs_losses() -> None:
    rec = RECORDED["lstm_train"]
    assert {"StackV2", "StackPushV2", "StackPopV2", "TensorArrayGradV3"} <= set(rec["ops"])
    feed = {
        "x:0": _array(rec["x"]),
        "lengths:0": _array(rec["lengths"]),
        "target:0": _array(rec["target"]),
    }
    g = tf.Graph()
    with g.as_default():
        saver = tf.train.import_meta_graph(os.path.join(FILES, "lstm_train.meta"))
        # minimize() and the recorder both added it to GraphKeys.TRAIN_OP ("train_op").
        train_op = tf.get_collection(tf.GraphKeys.TRAIN_OP)[0]
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(FILES, "lstm_train"))
            losses = [sess.run(["loss:0", train_op], feed)[0] for _ in rec["losses"]]
            np.testing.assert_allclose(losses, rec["losses"], rtol=1e-5)
            np.testing.assert_allclose(sess.run("loss:0", feed), rec["final_loss"], rtol=1e-5)
            kernel = sess.run("rnn/lstm_cell/kernel:0")
            reference.assert_close(kernel, _array(rec["kernel_after"]), rtol=1e-5, atol=1e-6)
            assert sess.run("global_step:0") == rec["global_step"]


def test_saved_model_with_batch_norm_and_dropout_on_a_training_placeholder() -> None:
    rec = RECORDED["bn_saved_model"]
    assert {"RefSwitch", "Switch", "Merge"} <= set(rec["ops"])
    x = _array(rec["x"])
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(
            sess, [tf.saved_model.tag_constants.SERVING], os.path.join(FILES, "bn_saved_model")
        )
        sig = meta.signature_def["serving_default"]
        x_name, training = sig.inputs["x"].name, sig.inputs["training"].name
        # Inference: moving statistics, no dropout.
        y = sess.run(sig.outputs["y"].name, {x_name: x})
        reference.assert_close(y, _array(rec["y_infer"]))
        moving = sess.run("batch_normalization/moving_mean:0")
        reference.assert_close(moving, _array(rec["moving_mean"]))
        # Training: batch statistics, and the moving mean updated through the cond.
        bn, _ = sess.run(["bn_out:0", "update"], {x_name: x, training: True})
        reference.assert_close(bn, _array(rec["bn_train"][-1]), rtol=1e-5, atol=1e-5)
        moving = sess.run("batch_normalization/moving_mean:0")
        reference.assert_close(moving, _array(rec["moving_mean_after_update"]))


def test_imported_batch_norm_training_graph_trains_through_its_cond() -> None:
    rec = RECORDED["bn_train"]
    g = tf.Graph()
    with g.as_default():
        saver = tf.train.import_meta_graph(os.path.join(FILES, "bn_train.meta"))
        train_op = g.get_operation_by_name("train")
        feed = {"x:0": _array(rec["x"]), "y:0": _array(rec["y"])}
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(FILES, "bn_train"))
            losses = [
                sess.run(["loss:0", train_op], {**feed, "training:0": True})[0]
                for _ in rec["losses"]
            ]
            np.testing.assert_allclose(losses, rec["losses"], rtol=1e-5)
            eval_loss = sess.run("loss:0", {**feed, "training:0": False})
            np.testing.assert_allclose(eval_loss, rec["eval_loss"], rtol=1e-5)


# ---- graphs made by hand, as TF 1.x lays them out ---------------------------------------
def _node(
    name: str, op: str, inputs: tuple[str, ...] = (), dtype: str = "DT_INT32", **attrs: str
) -> str:
    """One NodeDef in text form: attr T (or dtype for Const/Placeholder) plus `attrs`."""
    type_key = "dtype" if op in ("Const", "Placeholder") else "T"
    parts = [f'name: "{name}" op: "{op}"', *(f'input: "{i}"' for i in inputs)]
    if op != "LoopCond":
        parts.append(f"attr {{ key: '{type_key}' value {{ type: {dtype} }} }}")
    parts += [f"attr {{ key: '{k}' value {{ {v} }} }}" for k, v in attrs.items()]
    return "node { " + " ".join(parts) + " }"


def _const(name: str, value: str, dtype: str = "DT_INT32", field: str = "int_val") -> str:
    tensor = f"tensor {{ dtype: {dtype} tensor_shape {{}} {field}: {value} }}"
    return _node(name, "Const", dtype=dtype, value=tensor)


def _loop_graph_def() -> Any:
    """i = 0; while i < limit: i += 1 -- TF1's nodes for it (frame 'loop')."""
    frame = 's: "loop"'
    nodes = [
        _const("zero", "0"),
        _const("one", "1"),
        _node("limit", "Placeholder"),
        _node("enter", "Enter", ("zero",), frame_name=frame),
        _node("enter_limit", "Enter", ("limit",), frame_name=frame, is_constant="b: true"),
        _node("enter_one", "Enter", ("one",), frame_name=frame, is_constant="b: true"),
        _node("merge", "Merge", ("enter", "next"), N="i: 2"),
        _node("less", "Less", ("merge", "enter_limit")),
        _node("cond", "LoopCond", ("less",)),
        _node("sw", "Switch", ("merge", "cond")),
        _node("body", "Identity", ("sw:1",)),
        _node("add", "AddV2", ("body", "enter_one")),
        _node("next", "NextIteration", ("add",)),
        _node("exit", "Exit", ("sw",)),
    ]
    return text_format.Parse("\n".join(nodes), tf.GraphDef())


def test_hand_made_loop_counts_and_a_runaway_loop_stops_at_the_deadline() -> None:
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(_loop_graph_def(), name="")
        with tf.Session() as sess:
            assert sess.run("exit:0", {"limit:0": 7}) == 7
            assert sess.run("exit:0", {"limit:0": -3}) == 0
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run("exit:0", {"limit:0": 2**31 - 1}, options=tf.RunOptions(timeout_in_ms=300))
            # The session keeps working after the runaway step.
            assert sess.run("exit:0", {"limit:0": 2}) == 2


def test_fetching_a_dead_tensor_is_tfs_retval_error() -> None:
    nodes = [
        _const("c", "1", "DT_FLOAT", "float_val"),
        _node("p", "Placeholder", dtype="DT_BOOL"),
        _node("s", "Switch", ("c", "p"), "DT_FLOAT"),
        _node("neg", "Neg", ("s:1",), "DT_FLOAT"),
    ]
    gd = text_format.Parse("\n".join(nodes), tf.GraphDef())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            assert sess.run("neg:0", {"p:0": True}) == -1.0
            with pytest.raises(
                tf.errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"
            ):
                sess.run("neg:0", {"p:0": False})
            # Deadness stops at a Merge: one live input is enough.
            assert sess.run("s:0", {"p:0": False}) == 1.0


def test_exit_without_enter_is_invalid_argument_naming_it() -> None:
    gd = _loop_graph_def()
    text_format.Merge(_node("stray_exit", "Exit", ("one",)), gd)
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="stray_exit"):
                sess.run("stray_exit:0")
            assert sess.run("exit:0", {"limit:0": 3}) == 3


def test_a_node_reading_two_frames_is_refused() -> None:
    # "add" (in the loop) reads the root's "one" instead of the loop invariant "enter_one".
    gd = _loop_graph_def()
    for node in gd.node:
        if node.name == "add":
            node.input[1] = "one"
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with (
            tf.Session() as sess,
            pytest.raises(tf.errors.InvalidArgumentError, match="has inputs from different frames"),
        ):
            sess.run("exit:0", {"limit:0": 3})


def test_a_merge_never_fed_is_refused_on_import_and_at_run_time() -> None:
    merge = _node("m", "Merge", ("n", "n"), "DT_FLOAT", N="i: 2")
    nodes = [merge, _node("n", "NextIteration", ("m",), "DT_FLOAT")]
    gd = text_format.Parse("\n".join(nodes), tf.GraphDef())
    with tf.Graph().as_default(), pytest.raises(ValueError, match="cycle"):
        tf.import_graph_def(gd, name="")
    # Built in a graph by hand: the step refuses it instead of waiting forever.
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        m = g.create_op("Merge", [c, c], {"T": tf.float32, "N": 2}, name="m")
        n = g.create_op("NextIteration", [m.outputs[0]], {"T": tf.float32}, name="n")
        m._update_input(0, n.outputs[0])
        m._update_input(1, n.outputs[0])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="never"):
            sess.run(m.outputs[0])


def test_stack_ops_pop_in_reverse_and_an_empty_pop_is_invalid_argument() -> None:
    g = tf.Graph()
    with g.as_default():
        size = tf.constant(-1)
        stack = g.create_op("StackV2", [size], {"elem_type": tf.float32, "stack_name": "s"})
        handle = stack.outputs[0]
        push1 = g.create_op("StackPushV2", [handle, tf.constant([1.0])], {"T": tf.float32})
        with tf.control_dependencies([push1]):
            push2 = g.create_op("StackPushV2", [handle, tf.constant([2.0])], {"T": tf.float32})
        with tf.control_dependencies([push2]):
            pop1 = g.create_op("StackPopV2", [handle], {"elem_type": tf.float32})
        with tf.control_dependencies([pop1]):
            pop2 = g.create_op("StackPopV2", [handle], {"elem_type": tf.float32})
        with tf.control_dependencies([pop2]):
            pop3 = g.create_op("StackPopV2", [handle], {"elem_type": tf.float32})
        with tf.Session() as sess:
            a, b = sess.run([pop1.outputs[0], pop2.outputs[0]])
            assert a.tolist() == [2.0] and b.tolist() == [1.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="is empty"):
                sess.run(pop3.outputs[0])


def test_concat_offset_is_where_each_input_starts() -> None:
    g = tf.Graph()
    with g.as_default():
        shapes = [tf.constant(s) for s in ([2, 3, 5], [2, 7, 5], [2, 5, 5])]
        op = g.create_op("ConcatOffset", [tf.constant(1), *shapes], {"N": 3})
        bad = g.create_op(
            "ConcatOffset", [tf.constant(1), shapes[0], tf.constant([3, 3, 5])], {"N": 2}
        )
        with tf.Session() as sess:
            got = sess.run(op.outputs)
            assert [o.tolist() for o in got] == [[0, 0, 0], [0, 3, 0], [0, 10, 0]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="must match"):
                sess.run(bad.outputs)


def test_switch_merge_and_enter_infer_tfs_shapes() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [4, 3])
        pred = tf.placeholder(tf.bool, [])
        sw = g.create_op("Switch", [x, pred], {"T": tf.float32})
        assert [t.shape.as_list() for t in sw.outputs] == [[None, 3], [None, 3]]
        merge = g.create_op("Merge", [x, y], {"T": tf.float32, "N": 2})
        assert merge.outputs[0].shape.as_list() == [None, 3]
        assert merge.outputs[1].dtype == tf.int32
        enter = g.create_op("Enter", [y], {"T": tf.float32, "frame_name": "f"})
        assert enter.outputs[0].shape.ndims is None
        const_enter = g.create_op(
            "Enter", [y], {"T": tf.float32, "frame_name": "f", "is_constant": True}
        )
        assert const_enter.outputs[0].shape.as_list() == [4, 3]
        with pytest.raises(ValueError, match="rank 0"):
            g.create_op("Switch", [x, tf.placeholder(tf.bool, [2])], {"T": tf.float32})


def test_a_kernel_failing_inside_a_loop_names_its_node_and_the_session_goes_on() -> None:
    gd = _loop_graph_def()
    for node in gd.node:
        if node.name == "next":  # each iteration also reshapes i to the fed shape
            node.input.append("^reshape")
    frame = 's: "loop"'
    shape_enter = _node("enter_shape", "Enter", ("shape",), frame_name=frame, is_constant="b: true")
    text_format.Merge(_node("shape", "Placeholder"), gd)
    text_format.Merge(shape_enter, gd)
    text_format.Merge(_node("reshape", "Reshape", ("body", "enter_shape")), gd)
    # The reshape's result is read by no node: TF's dependency optimizer (on by default) makes
    # it a NoOp, so it runs only with that optimizer off (as TF 1.15 does).
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = (
        rewriter_config_pb2.RewriterConfig.OFF
    )
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session(config=config) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"node reshape\b"):
                sess.run("exit:0", {"limit:0": 5, "shape:0": [2]})
            assert sess.run("exit:0", {"limit:0": 5, "shape:0": [1]}) == 5
