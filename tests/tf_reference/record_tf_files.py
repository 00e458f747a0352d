"""Records files TensorFlow writes, and what TensorFlow reads from files tfcluster wrote.

Written by TensorFlow into data/tf_files/tf/ (committed; tests restore and run them):
  mlp/       a trained MLP: checkpoint (+ .meta, `checkpoint` state), frozen GraphDef
             (binary and text), inference GraphDef, SavedModel from simple_save
  conv/      a conv net trained with Adam: two-shard checkpoint (sharded Saver, variables on
             two devices), SavedModel from the builder (predict signature, main op, two
             MetaGraphDefs)
  typed/     a checkpoint of string, int64, int32, float64 scalar and bool variables
  parts/     a checkpoint of a partitioned variable (3 slices) and a plain one
Read by TensorFlow from data/tf_files/tfcluster/ (written by write_tfcluster_samples.py):
  every checkpoint's tensors, a Saver restore into TF's own graph, import_meta_graph +
  restore, the frozen graph, and each SavedModel loaded with tf.saved_model.loader.load and
  its signature run.
Plus TF's behaviour the tests compare with: error classes of damaged checkpoints, the
`checkpoint` state file's text, the save/ graph's node names, MetaGraphDef collections,
graph_util results and SignatureDefs.

TensorFlow 2.x's compat.v1 differs from 1.15 in one place recorded here: a sharded Saver's
graph gains RegexFullMatch/Select nodes before StringJoin (an s3 special case added after
1.15); the files it writes are the same.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf
import tf_files_models as models
from google.protobuf import text_format
from recorder import DATA_DIR, Recorder
from tensorflow.python.training import py_checkpoint_reader

tf.disable_v2_behavior()
rec = Recorder("tf_files")
FILES = os.path.join(DATA_DIR, "tf_files")
TF_OUT = os.path.join(FILES, "tf")
TFC = os.path.join(FILES, "tfcluster")


def reader_values(prefix: str) -> dict:
    reader = py_checkpoint_reader.NewCheckpointReader(prefix)
    shapes = reader.get_variable_to_shape_map()
    return {
        "shapes": {k: list(v) for k, v in shapes.items()},
        "dtypes": {k: v.name for k, v in reader.get_variable_to_dtype_map().items()},
        "values": {k: np.asarray(reader.get_tensor(k)) for k in shapes},
        "debug_string": reader.debug_string(),
    }


def variable_values(sess: tf.Session) -> dict:
    return {v.op.name: sess.run(v) for v in tf.global_variables()}


# ---- TensorFlow writes ---------------------------------------------------------------------
def record_mlp() -> None:
    out = os.path.join(TF_OUT, "mlp")
    os.makedirs(out)
    x_in, y_in = models.mlp_inputs()
    with tf.Graph().as_default() as g:
        m = models.mlp(tf)
        feeds = {m["x"]: x_in, m["y"]: y_in}
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([m["loss"], m["train"]], feeds)[0] for _ in range(3)]
            prefix = saver.save(sess, os.path.join(out, "model.ckpt"), global_step=m["step"])
            probs = sess.run(m["probs"], {m["x"]: x_in})
            after = variable_values(sess)
            inference = g.as_graph_def()
            frozen = tf.graph_util.convert_variables_to_constants(sess, inference, ["probs"])
            tf.train.write_graph(frozen, out, "frozen.pb", as_text=False)
            tf.train.write_graph(frozen, out, "frozen.pbtxt", as_text=True)
            sub = tf.graph_util.extract_sub_graph(inference, ["probs"])
            tf.train.write_graph(sub, out, "inference.pb", as_text=False)
            # One more step from the checkpoint, to check continued training.
            sess.run(m["train"], feeds)
            next_values = variable_values(sess)
            saver.restore(sess, prefix)
            tf.saved_model.simple_save(
                sess,
                os.path.join(TF_OUT, "mlp_saved_model"),
                inputs={"x": m["x"]},
                outputs={"probs": m["probs"]},
            )
        with tf.Graph().as_default(), tf.Session() as sess:
            mgd = tf.saved_model.loader.load(
                sess, ["serve"], os.path.join(TF_OUT, "mlp_saved_model")
            )
            sig = mgd.signature_def["serving_default"]
            served = sess.run(sig.outputs["probs"].name, {sig.inputs["x"].name: x_in})
        rec.add("mlp_saved_model", probs=served, method=sig.method_name)
        with open(os.path.join(out, "checkpoint")) as f:
            state = f.read().replace(out + "/", "<DIR>/")
        rec.add(
            "mlp",
            prefix=os.path.basename(prefix),
            losses=np.array(losses),
            probs=probs,
            variables=after,
            variables_after_one_more_step=next_values,
            state_file=state,
            frozen_nodes=[(n.name, n.op) for n in frozen.node],
            inference_nodes=[n.name for n in sub.node],
            training_removed=[n.name for n in tf.graph_util.remove_training_nodes(sub).node],
            input_shape=str(tf.graph_util.tensor_shape_from_node_def_name(g, "x")),
            must_run_on_cpu=[
                (n.name, tf.graph_util.must_run_on_cpu(n)) for n in sub.node if n.op == "Const"
            ],
            save_nodes=[op.name for op in g.get_operations() if op.name.startswith("save/")],
            saver_def=text_format.MessageToString(saver.saver_def),
            reader=reader_values(prefix),
        )
    # The MetaGraphDef Saver.save wrote, as TF imports it again.
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(prefix + ".meta", import_scope="imported")
        mgd = tf.train.export_meta_graph()
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            probs = sess.run("imported/probs:0", {"imported/x:0": x_in})
        kinds = {k: v.WhichOneof("kind") for k, v in mgd.collection_def.items()}
        rec.add(
            "mlp_import_meta_graph",
            probs=probs,
            global_variables=[v.name for v in tf.global_variables()],
            trainable_variables=[v.name for v in tf.trainable_variables()],
            train_op=[op.name for op in tf.get_collection("train_op")],
            outputs=[t.name for t in tf.get_collection("outputs")],
            collection_kinds=kinds,
            saver_restore_op=saver.saver_def.restore_op_name,
        )


def record_conv() -> None:
    out = os.path.join(TF_OUT, "conv")
    os.makedirs(out)
    images, labels = models.conv_inputs()
    with tf.Graph().as_default() as g:
        m = models.convnet(tf)
        feeds = {m["images"]: images, m["labels"]: labels}
        saver = tf.train.Saver(sharded=True, max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([m["loss"], m["train"]], feeds)[0] for _ in range(3)]
            prefix = saver.save(sess, os.path.join(out, "sharded"), global_step=m["step"])
            probs, classes = sess.run([m["probs"], m["classes"]], {m["images"]: images})
            values = variable_values(sess)
            builder = tf.saved_model.builder.SavedModelBuilder(
                os.path.join(TF_OUT, "conv_saved_model")
            )
            sig = tf.saved_model.signature_def_utils.predict_signature_def(
                {"images": m["images"]}, {"probs": m["probs"], "classes": m["classes"]}
            )
            builder.add_meta_graph_and_variables(
                sess,
                [tf.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig},
                main_op=tf.saved_model.main_op.main_op(),
            )
            builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING])
            builder.save()
        # What TF serves from its own SavedModel: main_op() initializes the variables again
        # after the restore, so the served model has the initial values.
        served = {}
        for tags in (["serve"], ["train"]):
            with tf.Graph().as_default(), tf.Session() as sess:
                mgd = tf.saved_model.loader.load(
                    sess, tags, os.path.join(TF_OUT, "conv_saved_model")
                )
                if tags == ["serve"]:
                    sig = mgd.signature_def["serving_default"]
                    served["probs"], served["classes"] = sess.run(
                        [sig.outputs["probs"].name, sig.outputs["classes"].name],
                        {sig.inputs["images"].name: images},
                    )
                else:
                    served["train_variables"] = variable_values(sess)
        rec.add(
            "conv_saved_model",
            probs=served["probs"],
            classes=served["classes"],
            train_variables=served["train_variables"],
        )
        rec.add(
            "conv",
            prefix=os.path.basename(prefix),
            losses=np.array(losses),
            probs=probs,
            classes=classes,
            variables=values,
            save_nodes=[op.name for op in g.get_operations() if op.name.startswith("save/")],
            save_devices={op.name: op.device for op in g.get_operations() if op.type == "SaveV2"},
            data_files=sorted(f for f in os.listdir(out) if ".data-" in f),
            reader=reader_values(prefix),
        )


def record_typed_and_partitioned() -> None:
    out = os.path.join(TF_OUT, "typed")
    os.makedirs(out)
    with tf.Graph().as_default():
        models.typed_variables(tf)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(out, "typed"), write_meta_graph=False)
    rec.add("typed", reader=reader_values(prefix))
    out = os.path.join(TF_OUT, "parts")
    os.makedirs(out)
    full = np.arange(40, dtype=np.float32).reshape(10, 4)

    def init(shape: list, dtype: object = None, partition_info: object = None) -> object:
        offset = partition_info.var_offset[0] if partition_info else 0
        return tf.constant(full[offset : offset + shape[0]])

    with tf.Graph().as_default():
        emb = tf.get_variable(
            "emb", [10, 4], partitioner=tf.fixed_size_partitioner(3), initializer=init
        )
        tf.get_variable("plain", initializer=np.float32(3.0))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(out, "parts"), write_meta_graph=False)
        parts = [(v.op.name, v._save_slice_info.spec) for v in emb]
    rec.add(
        "partitioned",
        full=full,
        parts=parts,
        list_variables=tf.train.list_variables(prefix),
        emb=tf.train.load_variable(prefix, "emb"),
        reader=reader_values(prefix),
    )


def record_errors() -> None:
    """Error classes TF gives for damaged checkpoints and graph/checkpoint mismatches."""
    tmp = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default():
            models.typed_variables(tf)
            big = tf.Variable(np.arange(1000, dtype=np.float32), name="big")
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                prefix = saver.save(sess, os.path.join(tmp, "ok"), write_meta_graph=False)
                data = prefix + ".data-00000-of-00001"
                index = prefix + ".index"

                def damaged(path: str, how: str) -> str:
                    copy_prefix = os.path.join(tmp, how)
                    for suffix in (".index", ".data-00000-of-00001"):
                        shutil.copy(prefix + suffix, copy_prefix + suffix)
                    target = copy_prefix + path[len(prefix) :]
                    with open(target, "rb") as f:
                        blob = bytearray(f.read())
                    if how.startswith("truncated"):
                        blob = blob[: len(blob) // 2]
                    else:
                        blob[len(blob) // 2] ^= 0xFF
                    with open(target, "wb") as f:
                        f.write(bytes(blob))
                    return copy_prefix

                cases = {
                    "truncated_data": damaged(data, "truncated_data"),
                    "corrupt_data": damaged(data, "corrupt_data"),
                    "truncated_index": damaged(index, "truncated_index"),
                    "corrupt_index": damaged(index, "corrupt_index"),
                }
                for name, bad in cases.items():
                    rec.add(
                        f"restore_{name}", error=rec.catch(lambda b=bad: saver.restore(sess, b))
                    )
                rec.add(
                    "reader_missing_file",
                    error=rec.catch(
                        lambda: py_checkpoint_reader.NewCheckpointReader(os.path.join(tmp, "no"))
                    ),
                )
                reader = py_checkpoint_reader.NewCheckpointReader(prefix)
                rec.add("reader_missing_key", error=rec.catch(lambda: reader.get_tensor("nope")))
                rec.add("reader_scalar", value=reader.get_tensor("scale"))
                del big
        with tf.Graph().as_default():
            tf.Variable(np.zeros(4, np.float32), name="big")
            saver = tf.train.Saver()
            with tf.Session() as sess:
                rec.add(
                    "restore_shape_mismatch", error=rec.catch(lambda: saver.restore(sess, prefix))
                )
        with tf.Graph().as_default():
            tf.Variable(np.zeros(2, np.float32), name="ids")
            saver = tf.train.Saver()
            with tf.Session() as sess:
                rec.add(
                    "restore_dtype_mismatch", error=rec.catch(lambda: saver.restore(sess, prefix))
                )
        with tf.Graph().as_default():
            tf.Variable(np.zeros(2, np.float32), name="not_in_checkpoint")
            saver = tf.train.Saver()
            with tf.Session() as sess:
                rec.add(
                    "restore_missing_variable", error=rec.catch(lambda: saver.restore(sess, prefix))
                )
        # Saving into a directory that does not exist: one level is made, deeper fails.
        with tf.Graph().as_default():
            tf.Variable(1.0, name="v")
            plain, sharded = tf.train.Saver(), tf.train.Saver(sharded=True)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                one_level = plain.save(sess, os.path.join(tmp, "new_dir", "m"))
                rec.add("save_makes_one_directory", exists=os.path.exists(one_level + ".index"))
                rec.add(
                    "save_missing_parents",
                    error=rec.catch(lambda: plain.save(sess, os.path.join(tmp, "a", "b", "m"))),
                )
                rec.add(
                    "sharded_save_missing_directory",
                    error=rec.catch(lambda: sharded.save(sess, os.path.join(tmp, "c", "m"))),
                )
    finally:
        shutil.rmtree(tmp)


def record_state_files() -> None:
    tmp = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default():
            tf.Variable(1.0, name="v")
            for relative in (False, True):
                saver = tf.train.Saver(max_to_keep=2, save_relative_paths=relative)
                d = os.path.join(tmp, f"relative_{relative}")
                os.makedirs(d)
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    paths = [
                        saver.save(sess, os.path.join(d, "m"), global_step=i) for i in range(3)
                    ]
                with open(os.path.join(d, "checkpoint")) as f:
                    text = f.read().replace(d + "/", "<DIR>/")
                state = tf.train.get_checkpoint_state(d)
                rec.add(
                    f"state_relative_{relative}",
                    text=text,
                    files=sorted(os.listdir(d)),
                    returned=[p.replace(d + "/", "<DIR>/") for p in paths],
                    latest=tf.train.latest_checkpoint(d).replace(d + "/", "<DIR>/"),
                    all_paths=[
                        p.replace(d + "/", "<DIR>/") for p in state.all_model_checkpoint_paths
                    ],
                )
            generated = tf.train.generate_checkpoint_state_proto(
                "rel_dir", "rel_dir/m-3", ["rel_dir/m-2", "/abs/m-1"]
            )
            rec.add("generated_state", text=text_format.MessageToString(generated))
    finally:
        shutil.rmtree(tmp)


def record_shape_n() -> None:
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, 3], name="a")
        b = tf.constant(np.zeros([2, 4, 5], np.float32), name="b")
        shapes = tf.shape_n([a, b], out_type=tf.int64)
        with tf.Session() as sess:
            values = sess.run(shapes, {a: np.zeros([7, 3], np.float32)})
        mixed = tf.constant([1, 2], name="ints")
        rec.add(
            "shape_n",
            names=[t.name for t in shapes],
            static=[str(t.shape) for t in shapes],
            values=values,
            mixed_dtypes=rec.catch(lambda: tf.shape_n([a, mixed])),
        )


def record_signatures() -> None:
    with tf.Graph().as_default():
        examples = tf.placeholder(tf.string, [None], name="examples")
        scores = tf.placeholder(tf.float32, [None, 3], name="scores")
        classes = tf.placeholder(tf.string, [None, 3], name="classes")
        values = tf.placeholder(tf.float32, [None], name="values")
        sdu = tf.saved_model.signature_def_utils
        sigs = {
            "predict": sdu.predict_signature_def({"x": scores}, {"y": values}),
            "classify": sdu.classification_signature_def(examples, classes, scores),
            "regress": sdu.regression_signature_def(examples, values),
            "custom": sdu.build_signature_def(
                {"a": tf.saved_model.utils.build_tensor_info(examples)}, {}, "my/method"
            ),
        }
        rec.add(
            "signatures",
            text={k: text_format.MessageToString(v) for k, v in sigs.items()},
            valid={k: sdu.is_valid_signature(v) for k, v in sigs.items()},
            tensor_info=text_format.MessageToString(tf.saved_model.utils.build_tensor_info(scores)),
            bad_regress=rec.catch(lambda: sdu.regression_signature_def(scores, values)),
            bad_classify=rec.catch(lambda: sdu.classification_signature_def(examples, None, None)),
            bad_predict=rec.catch(lambda: sdu.predict_signature_def({}, {"y": values})),
        )


# ---- TensorFlow reads what tfcluster wrote -------------------------------------------------
def record_tfcluster_files() -> None:
    x_in, _ = models.mlp_inputs()
    images, _ = models.conv_inputs()
    mlp_prefix = os.path.join(TFC, "mlp", "model.ckpt-2")
    conv_prefix = os.path.join(TFC, "conv", "sharded-3")
    typed_prefix = os.path.join(TFC, "typed", "typed")
    # A Saver restore into TF's own graph, and TF's reader.
    with tf.Graph().as_default():
        m = models.mlp(tf)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, mlp_prefix)
            probs = sess.run(m["probs"], {m["x"]: x_in})
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(mlp_prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, mlp_prefix)
            meta_probs = sess.run("probs:0", {"x:0": x_in})
            meta_train = [op.name for op in tf.get_collection("train_op")]
    with tf.Graph().as_default():
        gd = tf.GraphDef()
        with open(os.path.join(TFC, "mlp", "frozen.pb"), "rb") as f:
            gd.ParseFromString(f.read())
        (out,) = tf.import_graph_def(gd, return_elements=["probs:0"], name="")
        with tf.Session() as sess:
            frozen_probs = sess.run(out, {"x:0": x_in})
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = tf.saved_model.loader.load(
            sess, [tf.saved_model.tag_constants.SERVING], os.path.join(TFC, "mlp_saved_model")
        )
        sig = mgd.signature_def["serving_default"]
        saved_probs = sess.run(sig.outputs["probs"].name, {sig.inputs["x"].name: x_in})
    rec.add(
        "tfcluster_mlp",
        reader=reader_values(mlp_prefix),
        restored_probs=probs,
        meta_graph_probs=meta_probs,
        meta_graph_train_op=meta_train,
        frozen_probs=frozen_probs,
        saved_model_probs=saved_probs,
        saved_model_method=sig.method_name,
    )
    with tf.Graph().as_default():
        m = models.convnet(tf)
        saver = tf.train.Saver(sharded=True)
        with tf.Session() as sess:
            saver.restore(sess, conv_prefix)
            probs, classes = sess.run([m["probs"], m["classes"]], {m["images"]: images})
    loaded = {}
    for tags in (["serve"], ["train"]):
        with tf.Graph().as_default(), tf.Session() as sess:
            mgd = tf.saved_model.loader.load(sess, tags, os.path.join(TFC, "conv_saved_model"))
            if tags == ["serve"]:
                sig = mgd.signature_def["serving_default"]
                loaded["probs"], loaded["classes"] = sess.run(
                    [sig.outputs["probs"].name, sig.outputs["classes"].name],
                    {sig.inputs["images"].name: images},
                )
                loaded["asset_seen"] = sess.run("seen_asset:0")
            else:
                loaded["train_variables"] = sorted(v.op.name for v in tf.global_variables())
    with tf.Graph().as_default(), tf.Session() as sess:
        mgd = tf.saved_model.loader.load(sess, ["serve"], os.path.join(TFC, "typed_saved_model"))
        sig = mgd.signature_def["read"]
        typed_read = {k: sess.run(v.name) for k, v in sig.outputs.items()}
    rec.add(
        "tfcluster_conv",
        reader=reader_values(conv_prefix),
        restored_probs=probs,
        restored_classes=classes,
        saved_model_probs=loaded["probs"],
        saved_model_classes=loaded["classes"],
        saved_model_asset=os.path.basename(loaded["asset_seen"].decode()),
        saved_model_asset_dir=os.path.basename(os.path.dirname(loaded["asset_seen"].decode())),
        train_meta_graph_variables=loaded["train_variables"],
    )
    rec.add("tfcluster_typed", reader=reader_values(typed_prefix), saved_model_read=typed_read)


def main() -> None:
    shutil.rmtree(TF_OUT, ignore_errors=True)
    os.makedirs(TF_OUT)
    record_mlp()
    record_conv()
    record_typed_and_partitioned()
    record_errors()
    record_state_files()
    record_signatures()
    record_shape_n()
    if os.path.isdir(TFC):
        record_tfcluster_files()
    # State files hold this machine's absolute paths; tests read checkpoints by prefix.
    for root, _, files in os.walk(TF_OUT):
        for name in files:
            if name == "checkpoint" or name == "fingerprint.pb":
                os.remove(os.path.join(root, name))
    rec.save()


main()
