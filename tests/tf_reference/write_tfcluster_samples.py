"""Writes the files tfcluster makes for TensorFlow to read (run with tfcluster's Python):

    PYTHONPATH=server python tests/tf_reference/write_tfcluster_samples.py

into data/tf_files/tfcluster/: checkpoints (one shard, two shards, every dtype) with their
.meta, a frozen GraphDef, and SavedModels (simple_save; a builder with a main op, an asset
and a text saved_model.pbtxt). record_tf_files.py then reads them with TensorFlow and records
what it gets; tests/unit/test_tf_files_exchange.py compares tfcluster with that.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import tfcluster as tf  # noqa: E402

from tf_reference import tf_files_models as models  # noqa: E402

OUT = os.path.join(HERE, "data", "tf_files", "tfcluster")


def _train(sess: Any, model: dict[str, Any], feeds: dict[Any, Any], steps: int) -> None:
    for _ in range(steps):
        sess.run(model["train"], feeds)


def mlp_files() -> None:
    with tf.Graph().as_default():
        model = models.mlp(tf)
        x, y = models.mlp_inputs()
        feeds = {model["x"]: x, model["y"]: y}
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _train(sess, model, feeds, 2)
            os.makedirs(os.path.join(OUT, "mlp"))
            saver.save(sess, os.path.join(OUT, "mlp", "model.ckpt"), global_step=model["step"])
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, tf.get_default_graph().as_graph_def(), ["probs"]
            )
            tf.train.write_graph(frozen, os.path.join(OUT, "mlp"), "frozen.pb", as_text=False)
            tf.saved_model.simple_save(
                sess,
                os.path.join(OUT, "mlp_saved_model"),
                inputs={"x": model["x"]},
                outputs={"probs": model["probs"]},
            )


def conv_files() -> None:
    with tf.Graph().as_default():
        model = models.convnet(tf)
        images, labels = models.conv_inputs()
        feeds = {model["images"]: images, model["labels"]: labels}
        # The asset's path reaches the graph when the SavedModel loads: the main op stores it.
        asset_src = os.path.join(OUT, "vocab.txt")
        with open(asset_src, "w") as f:
            f.write("zero\none\ntwo\n")
        asset = tf.constant(asset_src, name="asset_path")
        tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset)
        seen = tf.Variable(b"", name="seen_asset", trainable=False, collections=[])
        main_op = tf.group(seen.assign(asset), name="main_op")
        saver = tf.train.Saver(sharded=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _train(sess, model, feeds, 3)
            os.makedirs(os.path.join(OUT, "conv"))
            saver.save(sess, os.path.join(OUT, "conv", "sharded"), global_step=model["step"])
            builder = tf.saved_model.builder.SavedModelBuilder(
                os.path.join(OUT, "conv_saved_model")
            )
            sig = tf.saved_model.signature_def_utils.predict_signature_def(
                {"images": model["images"]},
                {"probs": model["probs"], "classes": model["classes"]},
            )
            builder.add_meta_graph_and_variables(
                sess,
                [tf.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig},
                assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
                main_op=main_op,
            )
            builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING])
            builder.save()
        os.remove(asset_src)


def typed_files() -> None:
    with tf.Graph().as_default():
        variables = models.typed_variables(tf)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            os.makedirs(os.path.join(OUT, "typed"))
            saver.save(sess, os.path.join(OUT, "typed", "typed"), write_meta_graph=False)
            # A SavedModel in text form (saved_model.pbtxt) whose signature reads the variables.
            utils = tf.saved_model.utils
            sig = tf.saved_model.signature_def_utils.build_signature_def(
                outputs={k: utils.build_tensor_info(v.value()) for k, v in variables.items()},
                method_name=tf.saved_model.signature_constants.PREDICT_METHOD_NAME,
            )
            builder = tf.saved_model.builder.SavedModelBuilder(
                os.path.join(OUT, "typed_saved_model")
            )
            builder.add_meta_graph_and_variables(sess, ["serve"], {"read": sig})
            builder.save(as_text=True)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    mlp_files()
    conv_files()
    typed_files()
    # The state files name absolute paths of this machine: TF reads the files by prefix.
    for root, _, files in os.walk(OUT):
        for name in files:
            if name == "checkpoint":
                os.remove(os.path.join(root, name))
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
