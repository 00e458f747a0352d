"""tf.saved_model in tfcluster: build, save (binary and text), load with tags, scopes,
assets and main ops, and the errors TF's builder and loader raise."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf


def _model() -> tuple[tf.Tensor, tf.Tensor, tf.Variable]:
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(np.array([[1.0], [2.0]], np.float32), name="w")
    y = tf.matmul(x, w, name="y")
    return x, y, w


def test_simple_save_then_load_and_serve(tmp_path: os.PathLike) -> None:
    export = os.path.join(str(tmp_path), "model")
    x, y, w = _model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign([[3.0], [4.0]]))
        tf.saved_model.simple_save(sess, export, inputs={"x": x}, outputs={"y": y})
    assert sorted(os.listdir(export)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export, "variables"))) == [
        "variables.data-00000-of-00001",
        "variables.index",
    ]
    assert tf.saved_model.contains_saved_model(export)
    assert tf.saved_model.loader.maybe_saved_model_directory(export)
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = tf.saved_model.load(sess, [tf.saved_model.SERVING], export, import_scope="served")
        sig = mgd.signature_def[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert sig.method_name == tf.saved_model.PREDICT_METHOD_NAME
        get = tf.saved_model.get_tensor_from_tensor_info
        out = sess.run(
            get(sig.outputs["y"], import_scope="served"),
            {get(sig.inputs["x"], import_scope="served"): [[1.0, 1.0]]},
        )
        np.testing.assert_array_equal(out, [[7.0]])
        # simple_save clears devices and tags the graph for serving.
        assert list(mgd.meta_info_def.tags) == ["serve"]


def test_builder_with_two_graphs_assets_main_op_and_text(tmp_path: os.PathLike) -> None:
    export = os.path.join(str(tmp_path), "model")
    asset_file = os.path.join(str(tmp_path), "vocab.txt")
    with open(asset_file, "w") as f:
        f.write("a\nb\n")
    x, y, _w = _model()
    asset = tf.constant(asset_file, name="vocab_path")
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset)
    seen = tf.Variable(b"", name="seen", collections=[], trainable=False)
    main_op = tf.group(seen.assign(asset), name="remember_asset")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        builder = tf.saved_model.builder.SavedModelBuilder(export)
        sig = tf.saved_model.predict_signature_def({"x": x}, {"y": y})
        builder.add_meta_graph_and_variables(
            sess,
            ["serve"],
            {"serving_default": sig},
            assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
            main_op=main_op,
        )
        builder.add_meta_graph(["train", "gpu"])
        path = builder.save(as_text=True)
    assert path == os.path.join(export, "saved_model.pbtxt").encode()
    with open(os.path.join(export, "assets", "vocab.txt")) as f:
        assert f.read() == "a\nb\n"
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], export)
        assert sess.run("seen:0").decode() == os.path.join(export, "assets", "vocab.txt")
        np.testing.assert_array_equal(sess.run("y:0", {"x:0": [[1.0, 1.0]]}), [[3.0]])
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = tf.saved_model.loader.load(sess, ["gpu", "train"], export)
        assert not mgd.signature_def
        np.testing.assert_array_equal(sess.run("w:0"), [[1.0], [2.0]])
    with (
        tf.Graph().as_default(),
        tf.Session() as sess,
        pytest.raises(RuntimeError, match="could not be found in SavedModel"),
    ):
        tf.saved_model.loader.load(sess, ["eval"], export)


def test_builder_and_loader_errors_are_tfs(tmp_path: os.PathLike) -> None:
    d = str(tmp_path)
    os.makedirs(os.path.join(d, "busy"))
    with open(os.path.join(d, "busy", "f"), "w") as f:
        f.write("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.Builder(os.path.join(d, "busy"))
    x, y, _ = _model()
    builder = tf.saved_model.Builder(os.path.join(d, "m"))
    with pytest.raises(AssertionError, match="has not been saved yet"):
        builder.add_meta_graph(["serve"])
    bad = tf.saved_model.build_signature_def(
        {"x": tf.saved_model.build_tensor_info(x)}, {"y": tf.TensorInfo(name="y:0")}
    )
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(AssertionError, match="dtype"):
            builder.add_meta_graph_and_variables(sess, ["serve"], {"s": bad})
        reserved = tf.saved_model.predict_signature_def({"x": x}, {"y": y})
        with pytest.raises(KeyError, match="reserved"):
            builder.add_meta_graph_and_variables(
                sess, ["serve"], {"__saved_model_init_op": reserved}
            )
        with pytest.raises(TypeError, match="Operation"):
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op=y)
        builder.add_meta_graph_and_variables(sess, ["serve"])
        with pytest.raises(AssertionError, match="already been saved"):
            builder.add_meta_graph_and_variables(sess, ["serve"])
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.saved_model.loader.load(None, ["serve"], os.path.join(d, "nothing"))
    assert not tf.saved_model.maybe_saved_model_directory(os.path.join(d, "nothing"))


def test_main_op_and_main_op_with_restore() -> None:
    _, _, w = _model()
    local = tf.Variable(2.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.saved_model.main_op.main_op()
    assert init.type == "NoOp"
    assert {op.name for op in init.control_inputs} == {"init", "init_1", "init_all_tables"}
    saver = tf.train.Saver()
    # A NoOp after the restore op, with a fresh main op as a control dependency (as TF's).
    with_restore = tf.saved_model.main_op_with_restore(saver.saver_def.restore_op_name)
    names = {op.name for op in with_restore.control_inputs}
    assert "save/restore_all" in names and len(names) == 2
    with tf.Session() as sess:
        sess.run(init)
        assert sess.run(local) == 2.0
        np.testing.assert_array_equal(sess.run(w), [[1.0], [2.0]])
