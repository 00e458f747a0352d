"""MetaGraphDef export/import (collections of every kind, scopes, devices, unbound inputs),
GraphDef files (write_graph, import_graph_def), graph_util and init_from_checkpoint."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf
from google.protobuf import any_pb2
from tf_reference import reference
from tfcluster.protos import meta_graph_pb2

MLP_PREFIX = os.path.join(
    reference.DATA_DIR, "tf_files", "tf", "mlp", reference.case("tf_files", "mlp")["prefix"]
)


def _graph() -> dict[str, object]:
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        w = tf.Variable(np.ones([2, 3], np.float32), name="model/w")
    counter = tf.Variable(0, name="counter", trainable=False)
    local = tf.Variable(5.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    y = tf.matmul(x, w, name="model/y")
    bump = counter.assign_add(1, name="bump")
    tf.add_to_collection("outputs", y)
    tf.add_to_collection("ops", bump.op)
    tf.add_to_collection("ints", 3)
    tf.add_to_collection("floats", 0.5)
    tf.add_to_collection("strings", "hello")
    packed = any_pb2.Any()
    packed.Pack(meta_graph_pb2.AssetFileDef(filename="a.txt"))
    tf.add_to_collection("anys", packed)
    tf.add_to_collection("python_objects", object())  # not serialisable: left out
    saver = tf.train.Saver()
    tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
    return {"x": x, "w": w, "y": y, "local": local, "saver": saver}


def test_export_and_import_keep_every_collection(tmp_path: os.PathLike) -> None:
    g = _graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(g["w"], [[1, 2, 3], [4, 5, 6]]))
        path = g["saver"].save(sess, os.path.join(str(tmp_path), "m"))  # type: ignore[attr-defined]
    mgd = meta_graph_pb2.MetaGraphDef()
    with open(path + ".meta", "rb") as f:
        mgd.ParseFromString(f.read())
    kinds = {k: v.WhichOneof("kind") for k, v in mgd.collection_def.items()}
    assert kinds == {
        "anys": "any_list",
        "floats": "float_list",
        "ints": "int64_list",
        "local_variables": "bytes_list",
        "ops": "node_list",
        "outputs": "node_list",
        "savers": "bytes_list",
        "strings": "bytes_list",
        "trainable_variables": "bytes_list",
        "variables": "bytes_list",
    }
    assert mgd.saver_def.restore_op_name == "save/restore_all"
    assert mgd.meta_info_def.tensorflow_version == "1.15.0"
    # Shapes ride along, as TF's Saver writes them.
    assert "_output_shapes" in mgd.graph_def.node[0].attr
    with tf.Graph().as_default() as g2:
        saver = tf.train.import_meta_graph(path + ".meta", import_scope="s")
        assert saver is not None
        assert [v.name for v in tf.global_variables()] == ["s/model/w:0", "s/counter:0"]
        assert tf.trainable_variables()[0] is tf.global_variables()[0]
        assert [v.name for v in tf.local_variables()] == ["s/local:0"]
        assert tf.get_collection("outputs")[0].name == "s/model/y:0"
        assert tf.get_collection("ops")[0].name == "s/bump"
        assert tf.get_collection("ints") == [3]
        assert tf.get_collection("floats") == [0.5]
        assert tf.get_collection("strings") == ["s/hello"]
        unpacked = meta_graph_pb2.AssetFileDef()
        tf.get_collection("anys")[0].Unpack(unpacked)
        assert unpacked.filename == "a.txt"
        assert len(tf.get_collection(tf.GraphKeys.SAVERS)) == 1
        assert g2.get_operation_by_name("s/model/w").device.endswith("CPU:0")
        with tf.Session() as sess:
            saver.restore(sess, path)
            out = sess.run("s/model/y:0", {"s/x:0": [[1.0, 1.0]]})
            np.testing.assert_array_equal(out, [[5.0, 7.0, 9.0]])
            sess.run(tf.get_collection("ops")[0])


def test_clear_devices_and_text_meta_graphs(tmp_path: os.PathLike) -> None:
    _graph()
    path = os.path.join(str(tmp_path), "m.meta")
    mgd = tf.train.export_meta_graph(path, as_text=True, clear_devices=True)
    assert all(not n.device for n in mgd.graph_def.node)
    with open(path) as f:
        assert f.read().startswith("meta_info_def {")
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path)
        assert tf.get_default_graph().get_operation_by_name("model/w").device == ""


def test_export_scope_strips_names_and_unbound_inputs_need_an_input_map() -> None:
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.name_scope("inner"):
        w = tf.Variable(np.ones(2, np.float32), name="w")
        y = tf.multiply(x, w, name="y")
    exported = tf.train.export_meta_graph(export_scope="inner")
    names = [n.name for n in exported.graph_def.node]
    assert "x" not in names and "w" in names and "y" in names
    y_node = next(n for n in exported.graph_def.node if n.name == "y")
    assert y_node.input[0] == "$unbound_inputs_x"
    assert list(exported.collection_def["unbound_inputs"].bytes_list.value) == [
        b"$unbound_inputs_x"
    ]
    with tf.Graph().as_default(), pytest.raises(ValueError, match="unbound inputs"):
        tf.train.import_meta_graph(exported)
    with tf.Graph().as_default():
        feed = tf.constant([2.0, 3.0], name="feed")
        tf.train.import_meta_graph(
            exported, import_scope="copy", input_map={"$unbound_inputs_x": feed}
        )
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run("copy/y:0"), [2.0, 3.0])
    del y


def test_import_meta_graph_without_a_saver_def() -> None:
    tf.constant(1.0, name="c")
    exported = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        assert tf.train.import_meta_graph(exported) is None
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        exported = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(exported)
        assert isinstance(saver, tf.train.Saver)


def test_write_graph_text_and_binary_import_back(tmp_path: os.PathLike) -> None:
    a = tf.placeholder(tf.float32, name="a")
    tf.multiply(a, 2.0, name="double")
    d = os.path.join(str(tmp_path), "made", "here")
    text_path = tf.train.write_graph(tf.get_default_graph(), d, "g.pbtxt")
    bin_path = tf.train.write_graph(tf.get_default_graph().as_graph_def(), d, "g.pb", as_text=False)
    assert text_path == os.path.join(d, "g.pbtxt")
    from google.protobuf import text_format

    for path in (text_path, bin_path):
        gd = tf.GraphDef()
        with open(path, "rb") as f:
            content = f.read()
        if path.endswith(".pbtxt"):
            text_format.Parse(content.decode(), gd)
        else:
            gd.ParseFromString(content)
        with tf.Graph().as_default():
            op, out = tf.import_graph_def(gd, return_elements=["double", "double:0"], name="g")
            assert op.name == "g/double"
            with tf.Session() as sess:
                assert sess.run(out, {"g/a:0": 4.0}) == 8.0


def test_import_graph_def_names_every_unknown_op_type() -> None:
    gd = tf.GraphDef()
    for name, op in [("a", "Frobnicate"), ("b", "Frobnicate"), ("c", "Zap"), ("d", "NoOp")]:
        node = gd.node.add()
        node.name, node.op = name, op
    with pytest.raises(tf.errors.NotFoundError) as info:
        tf.import_graph_def(gd)
    message = str(info.value)
    assert "'Frobnicate'" in message and "'Zap'" in message and "nodes a, b" in message


def test_graph_util_argument_errors_and_variable_lists() -> None:
    v = tf.Variable(np.ones(2, np.float32), name="v")
    u = tf.Variable(np.ones(2, np.float32), name="u")
    tf.add(v, u, name="sum")
    gd = tf.get_default_graph().as_graph_def()
    with pytest.raises(TypeError, match="GraphDef"):
        tf.graph_util.extract_sub_graph("nope", ["sum"])
    with pytest.raises(TypeError, match="must be a list"):
        tf.graph_util.extract_sub_graph(gd, "sum")
    with pytest.raises(AssertionError, match="missing is not in graph"):
        tf.graph_util.extract_sub_graph(gd, ["missing"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        only_v = tf.graph_util.convert_variables_to_constants(
            sess, gd, ["sum"], variable_names_whitelist=["v"]
        )
        not_v = tf.graph_util.convert_variables_to_constants(
            sess, gd, ["sum"], variable_names_blacklist=["v"]
        )
    ops = {n.name: n.op for n in only_v.node}
    assert (ops["v"], ops["u"]) == ("Const", "VariableV2")
    ops = {n.name: n.op for n in not_v.node}
    assert (ops["v"], ops["u"]) == ("VariableV2", "Const")
    protected = tf.graph_util.remove_training_nodes(gd, protected_nodes=["v/read"])
    assert "v/read" in [n.name for n in protected.node]
    assert "u/read" not in [n.name for n in protected.node]


def test_init_from_checkpoint_by_variable_name_and_scope() -> None:
    reader = tf.train.load_checkpoint(MLP_PREFIX)
    hidden = tf.Variable(np.zeros([6, 8], np.float32), name="new/hidden/kernel")
    bias = tf.Variable(np.zeros(8, np.float32), name="new/hidden/bias")
    logits = tf.Variable(np.zeros([8, 3], np.float32), name="other/logits")
    tf.train.init_from_checkpoint(MLP_PREFIX, {"mlp/hidden/": "new/hidden/"})
    tf.train.init_from_checkpoint(MLP_PREFIX, {"mlp/logits/kernel": logits})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(hidden), reader.get_tensor("mlp/hidden/kernel"))
        np.testing.assert_array_equal(sess.run(bias), reader.get_tensor("mlp/hidden/bias"))
        np.testing.assert_array_equal(sess.run(logits), reader.get_tensor("mlp/logits/kernel"))
    assert logits.initial_value.op.type == "RestoreV2"
    with pytest.raises(ValueError, match="not found in"):
        tf.train.init_from_checkpoint(MLP_PREFIX, {"mlp/nothing": logits})
    with pytest.raises(ValueError, match="doesn't match with shape"):
        tf.train.init_from_checkpoint(MLP_PREFIX, {"mlp/hidden/bias": logits})
    with pytest.raises(ValueError, match="should map to scope only"):
        tf.train.init_from_checkpoint(MLP_PREFIX, {"mlp/hidden": "new/"})


def test_queue_runners_survive_a_meta_graph() -> None:
    queue = tf.FIFOQueue(10, tf.float32, name="q")
    enqueue = queue.enqueue(tf.constant(1.5))
    qr = tf.train.QueueRunner(queue, [enqueue])
    tf.train.add_queue_runner(qr)
    exported = tf.train.export_meta_graph()
    proto = exported.collection_def["queue_runners"].bytes_list.value[0]
    assert qr.to_proto().SerializeToString() == proto
    with tf.Graph().as_default():
        tf.train.import_meta_graph(exported, import_scope="copy")
        (runner,) = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert runner.name == "copy/q"
        assert [op.name for op in runner.enqueue_ops] == ["copy/q_enqueue"]
        from tfcluster.ops.op_util import make_op

        handle = tf.get_default_graph().get_tensor_by_name("copy/q:0")
        size = make_op("QueueSizeV2", [handle], {}, name="size").outputs[0]
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord=coord)
            while sess.run(size) < 10:  # the imported runner's thread fills the queue
                pass
            coord.request_stop()
            coord.join(threads)
